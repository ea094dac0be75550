import { connect } from "node:net";
import { join } from "node:path";
import type { HookAnswer } from "../adapters/claude-code/hook-answer.js";
import { checkServiceDir, ensureServiceDir, serviceDir, SOCKET_NAME } from "./service-paths.js";
import { parseServiceAnswer, parseWaitingLine, type ServiceRequest } from "./service-protocol.js";

/** How long a hook waits for a service it has just started. */
const START_WAIT_MS = 3_000;
/** How long a hook waits for an answer: past this it decides itself. */
const ANSWER_WAIT_MS = 15_000;

/**
 * The guard service's answer to one hook event, starting the service when none listens; null when
 * it cannot be reached (the caller then decides in its own process). Errors never escape: a
 * service that misbehaves is a service not reached.
 */
export async function askService(
  request: ServiceRequest,
  env: Readonly<Record<string, string | undefined>> = process.env,
  /** No answer after this instant (epoch ms) is waited for, whatever the service says it waits for. */
  deadline: number = Number.POSITIVE_INFINITY,
  /** `start: false`: only a service already listening is asked. */
  { start = true }: { readonly start?: boolean } = {},
): Promise<HookAnswer | null> {
  const dir = serviceDir(env);
  const socket = join(dir, SOCKET_NAME);
  try {
    checkServiceDir(dir);
  } catch {
    try {
      ensureServiceDir(dir);
    } catch {
      return null;
    }
  }
  const first = await exchange(socket, request, deadline);
  if (first.kind === "answer") return first.answer;
  if (first.kind === "failed" || !start) return null;
  await startService(env);
  const startBy = Date.now() + START_WAIT_MS;
  while (Date.now() < startBy) {
    await new Promise((r) => setTimeout(r, 15));
    const next = await exchange(socket, request, deadline);
    if (next.kind === "answer") return next.answer;
    if (next.kind === "failed") return null;
  }
  return null;
}

type Exchange = { kind: "answer"; answer: HookAnswer } | { kind: "absent" } | { kind: "failed" };

function exchange(socketPath: string, request: ServiceRequest, deadline: number): Promise<Exchange> {
  return new Promise((resolve) => {
    const socket = connect(socketPath);
    const chunks: Buffer[] = [];
    let connected = false;
    let timer: NodeJS.Timeout | undefined;
    const wait = (until: number): void => {
      if (timer !== undefined) clearTimeout(timer);
      timer = setTimeout(() => finish({ kind: "failed" }), Math.max(0, Math.min(until, deadline) - Date.now()));
    };
    const finish = (result: Exchange): void => {
      if (timer !== undefined) clearTimeout(timer);
      socket.destroy();
      resolve(result);
    };
    wait(Date.now() + ANSWER_WAIT_MS);
    socket.on("connect", () => {
      connected = true;
      // Our side stays open: closing it tells the service to stop waiting for the owner.
      socket.write(`${JSON.stringify(request)}\n`);
    });
    let seen = 0;
    socket.on("data", (c: Buffer) => {
      chunks.push(c);
      const text = Buffer.concat(chunks).toString("utf8");
      const lines = text.split("\n");
      // The service holds a call for the owner until `until`: its answer comes by then.
      for (; seen < lines.length - 1; seen++) {
        const until = parseWaitingLine(lines[seen] ?? "");
        if (until !== null) wait(until + ANSWER_WAIT_MS);
      }
    });
    socket.on("end", () => {
      const lines = Buffer.concat(chunks).toString("utf8").split("\n").filter((l) => l !== "");
      const answer = parseServiceAnswer(lines.at(-1) ?? "");
      finish(answer === null ? { kind: "failed" } : { kind: "answer", answer });
    });
    socket.on("error", (error: NodeJS.ErrnoException) => {
      const absent = !connected && (error.code === "ENOENT" || error.code === "ECONNREFUSED");
      finish(absent ? { kind: "absent" } : { kind: "failed" });
    });
  });
}

/** Loaded only when a service has to be started: most hooks never need them. */
async function startService(env: Readonly<Record<string, string | undefined>>): Promise<void> {
  const [{ spawn }, { fileURLToPath }] = await Promise.all([import("node:child_process"), import("node:url")]);
  const main = fileURLToPath(new URL("./service-main.js", import.meta.url));
  const child = spawn(process.execPath, [main], { detached: true, stdio: "ignore", env: { ...env } });
  child.on("error", () => undefined);
  child.unref();
}
