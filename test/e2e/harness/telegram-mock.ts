import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * The Telegram Bot API on loopback, as much of it as OpenClaw's Telegram channel (grammY, long
 * polling) uses: `getUpdates` serves the messages a test sends in; every other method is logged
 * and answered plausibly. The log is the channel's side of the story: what the bot really sent,
 * to whom, which a test checks instead of trusting anyone's own log.
 */
export interface BotCall {
  readonly method: string;
  readonly params: Record<string, unknown>;
  /** When the call arrived (`performance.now()`, the clock the model server's log uses). */
  readonly at: number;
  /** The id of the message a send created, once answered. */
  messageId?: number;
}

export interface TelegramUser {
  readonly id: number;
  readonly firstName: string;
}

export interface TelegramMock {
  /** The `apiRoot` to give OpenClaw (`channels.telegram.apiRoot`). */
  readonly apiRoot: string;
  readonly token: string;
  readonly calls: BotCall[];
  /**
   * A private message from `from` to the bot; `forwardedFrom`: a message `from` forwards, which that
   * user wrote; `replyTo`: a message of the bot's that `from` replies to, whose text Telegram sends along.
   */
  sendDm(from: TelegramUser, text: string, forwardedFrom?: TelegramUser, replyTo?: { messageId: number; text: string }): void;
  /** A document `from` sends the bot privately (a text file), with an optional caption. */
  sendDocument(from: TelegramUser, fileName: string, content: string, caption?: string): void;
  /** A sticker `from` sends the bot privately: one of the pack `setName` (made by whoever made the pack), a small static image. */
  sendSticker(from: TelegramUser, emoji: string, setName: string): void;
  /**
   * A recording `from` sends the bot privately: a voice note they recorded in the chat (`voice`),
   * or an audio file (a voicemail someone left them). Its bytes are `words`: what a transcriber
   * reading it hears (padded with blank lines past the shortest recording OpenClaw transcribes, 1 KiB).
   */
  sendAudio(from: TelegramUser, words: string, kind: "voice" | "file"): void;
  /** `from` reacts with `emoji` to the message `messageId` of their private chat with the bot. */
  sendReaction(from: TelegramUser, messageId: number, emoji: string): void;
  /** A message from `from` in the group chat `chatId` (negative, as Telegram numbers groups). */
  sendGroup(from: TelegramUser, chatId: number, text: string): void;
  /** The texts the bot sent to `chatId`, in order. */
  sentTo(chatId: number | string): string[];
  /** Resolves once the bot has sent `chatId` a text matching `match` (after `fromIndex` calls). */
  waitForSent(chatId: number | string, match: RegExp, timeoutMs?: number, fromIndex?: number): Promise<string>;
  close(): Promise<void>;
}

export const BOT_ID = 7_000_000_001;

/** A 1×1 lossless WebP: what a sticker's file is, as small as one can be. */
const ONE_PIXEL_WEBP = Buffer.from("UklGRhoAAABXRUJQVlA4TA0AAAAvAAAAEAcQERGIiP4HAA==", "base64");

export async function startTelegramMock(token = "7000000001:e2e-test-token"): Promise<TelegramMock> {
  const calls: BotCall[] = [];
  const queue: Record<string, unknown>[] = [];
  let nextUpdateId = 1;
  let nextMessageId = 1000;
  let waiter: (() => void) | null = null;
  const sentWaiters = new Set<() => void>();

  const push = (update: Record<string, unknown>): void => {
    queue.push({ update_id: nextUpdateId++, ...update });
    waiter?.();
  };
  const message = (from: TelegramUser, chat: Record<string, unknown>, text: string): Record<string, unknown> => ({
    message_id: nextMessageId++,
    date: Math.floor(Date.now() / 1000),
    chat,
    from: { id: from.id, is_bot: false, first_name: from.firstName },
    text,
    ...(text.startsWith("/") ? { entities: [{ type: "bot_command", offset: 0, length: text.split(/\s/)[0]?.length ?? text.length }] } : {}),
  });

  /** What `getFile` and the file download serve, by file id: the file's path on the Bot API's file server and its bytes. */
  const files = new Map<string, { readonly path: string; readonly bytes: Buffer; readonly type: string }>();
  const answer = async (method: string, params: Record<string, unknown>): Promise<unknown> => {
    switch (method) {
      case "getFile": {
        const id = String(params.file_id);
        const file = files.get(id);
        return file === undefined ? false : { file_id: id, file_unique_id: `u${id}`, file_size: file.bytes.length, file_path: file.path };
      }
      case "getMe":
        return { id: BOT_ID, is_bot: true, first_name: "E2E Bot", username: "e2e_provenant_bot", can_join_groups: true, can_read_all_group_messages: true, supports_inline_queries: false };
      case "getUpdates": {
        const offset = typeof params.offset === "number" ? params.offset : 0;
        while (queue.length > 0 && (queue[0]?.update_id as number) < offset) queue.shift();
        if (queue.length === 0) {
          const seconds = typeof params.timeout === "number" ? Math.min(params.timeout, 2) : 0;
          await new Promise<void>((resolve) => {
            const timer = setTimeout(resolve, seconds * 1000);
            waiter = () => {
              clearTimeout(timer);
              resolve();
            };
          });
          waiter = null;
        }
        return queue.filter((u) => (u.update_id as number) >= offset);
      }
      case "sendMessage":
      case "editMessageText":
      case "sendPhoto":
      case "sendDocument":
        return { message_id: nextMessageId++, date: Math.floor(Date.now() / 1000), chat: { id: params.chat_id, type: "private" }, text: params.text ?? params.caption ?? "" };
      case "getChat":
        return { id: params.chat_id, type: "private", first_name: "Someone" };
      case "getMyCommands":
        return [];
      case "getWebhookInfo":
        return { url: "", has_custom_certificate: false, pending_update_count: 0 };
      default:
        return true;
    }
  };

  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    void (async () => {
      const download = /^\/file\/bot([^/]+)\/(.+)$/.exec(req.url ?? "");
      const served = download === null || download[1] !== token ? undefined : [...files.values()].find((f) => f.path === download[2]);
      if (served !== undefined) {
        res.writeHead(200, { "content-type": served.type }).end(served.bytes);
        return;
      }
      const match = /^\/bot([^/]+)\/([A-Za-z]+)/.exec(req.url ?? "");
      if (match === null || match[1] !== token) {
        res.writeHead(404, { "content-type": "application/json" }).end(JSON.stringify({ ok: false, error_code: 404, description: "Not Found" }));
        return;
      }
      const method = match[2] ?? "";
      const params = await readParams(req);
      const call: BotCall = { method, params, at: performance.now() };
      const result = await answer(method, params);
      if (method !== "getUpdates") {
        const id = (result as { message_id?: unknown } | null)?.message_id;
        if (typeof id === "number") call.messageId = id;
        calls.push(call);
        for (const wake of sentWaiters) wake();
      }
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ ok: true, result }));
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;

  const sentTo = (chatId: number | string, from = 0): string[] =>
    calls
      .slice(from)
      .filter((c) => (c.method === "sendMessage" || c.method === "editMessageText") && String(c.params.chat_id) === String(chatId))
      .map((c) => String(c.params.text ?? ""));

  return {
    apiRoot: `http://127.0.0.1:${port}`,
    token,
    calls,
    sendDm: (from, text, forwardedFrom, replyTo) => {
      const chat = { id: from.id, type: "private", first_name: from.firstName };
      const sent = message(from, chat, text);
      const forward = forwardedFrom === undefined ? {} : { forward_origin: { type: "user", date: (sent.date as number) - 60, sender_user: { id: forwardedFrom.id, is_bot: false, first_name: forwardedFrom.firstName } } };
      const reply = replyTo === undefined ? {} : { reply_to_message: { message_id: replyTo.messageId, date: (sent.date as number) - 30, chat, from: { id: BOT_ID, is_bot: true, first_name: "E2E Bot", username: "e2e_provenant_bot" }, text: replyTo.text } };
      push({ message: { ...sent, ...forward, ...reply } });
    },
    sendDocument: (from, fileName, content, caption) => {
      const id = `doc${nextMessageId}`;
      files.set(id, { path: `documents/${id}.txt`, bytes: Buffer.from(content, "utf8"), type: "text/plain" });
      const sent = message(from, { id: from.id, type: "private", first_name: from.firstName }, "");
      delete sent.text;
      const document = { file_id: id, file_unique_id: `u${id}`, file_name: fileName, mime_type: "text/plain", file_size: Buffer.byteLength(content) };
      push({ message: { ...sent, document, ...(caption !== undefined ? { caption } : {}) } });
    },
    sendSticker: (from, emoji, setName) => {
      const id = `sticker${nextMessageId}`;
      files.set(id, { path: `stickers/${id}.webp`, bytes: ONE_PIXEL_WEBP, type: "image/webp" });
      const sent = message(from, { id: from.id, type: "private", first_name: from.firstName }, "");
      delete sent.text;
      const sticker = { file_id: id, file_unique_id: `u${id}`, type: "regular", width: 1, height: 1, is_animated: false, is_video: false, emoji, set_name: setName, file_size: ONE_PIXEL_WEBP.length };
      push({ message: { ...sent, sticker } });
    },
    sendAudio: (from, words, kind) => {
      const id = `${kind}${nextMessageId}`;
      const bytes = Buffer.from(`${words}\n${"\n".repeat(1100)}`, "utf8");
      const voice = kind === "voice";
      files.set(id, { path: voice ? `voice/${id}.oga` : `music/${id}.mp3`, bytes, type: voice ? "audio/ogg" : "audio/mpeg" });
      const sent = message(from, { id: from.id, type: "private", first_name: from.firstName }, "");
      delete sent.text;
      const file = { file_id: id, file_unique_id: `u${id}`, duration: 3, file_size: bytes.length };
      push({ message: { ...sent, ...(voice ? { voice: { ...file, mime_type: "audio/ogg" } } : { audio: { ...file, mime_type: "audio/mpeg", file_name: "voicemail.mp3", performer: "Unknown caller", title: "Voicemail" } }) } });
    },
    sendReaction: (from, messageId, emoji) =>
      push({
        message_reaction: {
          chat: { id: from.id, type: "private", first_name: from.firstName },
          message_id: messageId,
          user: { id: from.id, is_bot: false, first_name: from.firstName },
          date: Math.floor(Date.now() / 1000),
          old_reaction: [],
          new_reaction: [{ type: "emoji", emoji }],
        },
      }),
    sendGroup: (from, chatId, text) => push({ message: message(from, { id: chatId, type: "group", title: "E2E group" }, text) }),
    sentTo: (chatId) => sentTo(chatId),
    waitForSent: (chatId, pattern, timeoutMs = 120_000, fromIndex = 0) =>
      new Promise<string>((resolve, reject) => {
        const check = (): boolean => {
          const hit = sentTo(chatId, fromIndex).find((t) => pattern.test(t));
          if (hit === undefined) return false;
          sentWaiters.delete(wake);
          clearTimeout(timer);
          resolve(hit);
          return true;
        };
        const wake = (): void => void check();
        const timer = setTimeout(() => {
          sentWaiters.delete(wake);
          reject(new Error(`the bot sent ${String(chatId)} nothing matching ${String(pattern)}; it sent: ${JSON.stringify(sentTo(chatId, fromIndex)).slice(0, 2000)}`));
        }, timeoutMs);
        sentWaiters.add(wake);
        check();
      }),
    close: () =>
      new Promise<void>((resolve) => {
        waiter?.();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function readParams(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const body = Buffer.concat(chunks).toString("utf8");
  const type = req.headers["content-type"] ?? "";
  if (type.includes("application/json") && body !== "") {
    try {
      const parsed: unknown = JSON.parse(body);
      return parsed !== null && typeof parsed === "object" ? (parsed as Record<string, unknown>) : {};
    } catch {
      return {};
    }
  }
  if (type.includes("application/x-www-form-urlencoded")) return Object.fromEntries(new URLSearchParams(body));
  // multipart (a file upload): the fields as text, enough to see where it went
  const fields: Record<string, unknown> = {};
  for (const m of body.matchAll(/name="([^"]+)"\r\n\r\n([^\r]*)\r\n/g)) if (m[1] !== undefined) fields[m[1]] = m[2];
  return fields;
}
