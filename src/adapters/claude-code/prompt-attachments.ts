import { closeSync, constants, fstatSync, openSync, readSync } from "node:fs";
import { HOOK_OUTPUT_MARK, otherHookOutput, type HookOutput } from "./hook-output.js";

/**
 * What the owner's prompt carried beside its text. Claude Code 2.1.332 hands its UserPromptSubmit
 * hook the prompt's text only: an image or a document sent with it (pasted into the terminal, or a
 * content block of `--input-format stream-json`, as the Agent SDK sends a chat app's uploads) is
 * not in the event. It is in the session's transcript (`transcript_path`), in the user entry of
 * that prompt (`promptId`, the `prompt_id` of every hook event of the turn), which Claude Code
 * writes as it first asks the model: not always before the turn's first tool call reaches its hook,
 * which therefore waits for it ({@link transcriptCaughtUp}). A transcript still not there, or still
 * without the prompt's entry, is one that could not be looked through, and the session is tainted
 * as if the prompt carried something.
 *
 * Every user entry from the prompt's own to the transcript's end is looked through, whichever
 * prompt it files itself under, and every message sent while the turn ran, which Claude Code
 * queues into it as a `queued_command` attachment (its UserPromptSubmit names the running turn's
 * prompt); a tool's result is left to the PostToolUse that reports it. So is what other hooks put
 * before the model (hook-output.ts), which Claude Code files beside the entries of the turn it came
 * with: for the session's first prompt and a resumed session's, the SessionStart hooks' output
 * precedes the prompt's entry, back to the last entry of an earlier prompt.
 */
export type AttachmentCheck =
  | {
      readonly checked: true;
      /** The kinds of block the turn's user entries carry beside text (`image`, `document`), each once. */
      readonly kinds: readonly string[];
      /** Where the next check of the same prompt starts: the end of the last whole line read. */
      readonly next: number;
      /** How many messages queued into the turn (`queued_command`) the lines read hold, after the prompt's own entry. */
      readonly queued: number;
      /** What other hooks showed the model in the lines read (hook-output.ts), each once. */
      readonly hookOutputs: readonly string[];
      /** One of them is a prompt a hook submitted in the owner's place. */
      readonly hookPrompt: boolean;
    }
  | { readonly checked: false; readonly why: string; readonly noTranscript: boolean };

/** How a transcript is read: in chunks of `chunk` bytes, at most `maxRead` bytes a check. */
export interface ReadLimits {
  readonly chunk: number;
  readonly maxRead: number;
}

/** Why a lookup fails while the transcript does not hold the prompt's entry (yet): a wait may end it. */
const NO_ENTRY = "its transcript holds no entry of the prompt";

/** A turn whose transcript is longer than 64 MiB is not looked through. */
export const TRANSCRIPT_READ: ReadLimits = Object.freeze({ chunk: 1 << 20, maxRead: 64 << 20 });
/** A user entry's blocks that are not something the prompt carried. */
const NOT_CARRIED: ReadonlySet<string> = new Set(["text", "tool_result"]);
/** The attachment a message sent while the turn ran is queued into the turn as. */
const QUEUED = '"queued_command"';
const NEWLINE = 0x0a;

/**
 * The turn of `promptId` in `transcript`: from `from` (the `next` of an earlier check of the same
 * prompt) to the end, or, with `from` null (or past a transcript that has since shrunk), back from
 * the end to the prompt's own entry.
 */
export function promptAttachments(transcript: string, promptId: string, from: number | null, limits: ReadLimits = TRANSCRIPT_READ): AttachmentCheck {
  let fd: number;
  try {
    // Without blocking: a FIFO put where the transcript was would otherwise hold the hook forever.
    fd = openSync(transcript, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    const missing = (error as NodeJS.ErrnoException).code === "ENOENT";
    return { checked: false, why: missing ? "Claude Code has written no transcript of the session (it keeps none, or not yet)" : `its transcript could not be read (${(error as Error).message})`, noTranscript: missing };
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) return { checked: false, why: "its transcript is not a regular file", noTranscript: false };
    const size = stat.size;
    return from !== null && from <= size ? forward(fd, from, size, limits) : backward(fd, size, promptId, limits);
  } catch (error) {
    return { checked: false, why: `its transcript could not be read (${(error as Error).message})`, noTranscript: false };
  } finally {
    closeSync(fd);
  }
}

/**
 * Resolves once the lookup of `promptId` from `from` finds its entry and at least `queued` messages
 * queued into the turn, or after `waitMs`, looking every `everyMs`. A lookup that fails for another
 * reason than a transcript or an entry not there (yet) ends the wait: waiting would not change it.
 */
export async function transcriptCaughtUp(transcript: string, promptId: string, from: number | null, queued: number, waitMs: number, everyMs = 10): Promise<void> {
  const until = Date.now() + waitMs;
  for (;;) {
    const check = promptAttachments(transcript, promptId, from);
    const waiting = check.checked ? check.queued < queued : check.noTranscript || check.why === NO_ENTRY;
    if (!waiting || Date.now() >= until) return;
    await new Promise((resolveWait) => setTimeout(resolveWait, everyMs));
  }
}

function forward(fd: number, from: number, size: number, limits: ReadLimits): AttachmentCheck {
  if (size - from > limits.maxRead) return tooLong(limits);
  const bytes = read(fd, from, size - from);
  const end = bytes.lastIndexOf(NEWLINE) + 1;
  const kinds = new Set<string>();
  const hooks = new HookOutputs();
  let queued = 0;
  for (let start = 0; start < end; ) {
    const stop = bytes.indexOf(NEWLINE, start);
    const entry = userEntry(bytes.subarray(start, stop));
    if (entry !== null) {
      for (const kind of entry.carried) kinds.add(kind);
      hooks.add(entry.hookOutput);
      if (entry.queued) queued++;
    }
    start = stop + 1;
  }
  return { checked: true, kinds: [...kinds], next: from + end, queued, ...hooks.found() };
}

/**
 * Back from the end to the prompt's own entry: it stops at the user entry of another prompt that
 * precedes it. The line being written (no newline yet) is left for the next check.
 */
function backward(fd: number, size: number, promptId: string, limits: ReadLimits): AttachmentCheck {
  const next = endOfLastLine(fd, size, limits);
  if (next === null) return tooLong(limits);
  const kinds = new Set<string>();
  const hooks = new HookOutputs();
  let seen = false;
  // Queued messages count once an entry of the prompt is found before them: then they are the turn's.
  let queued = 0;
  let queuedSince = 0;
  for (const line of linesBack(fd, next, limits)) {
    if (line === null) return tooLong(limits);
    const entry = userEntry(line);
    if (entry === null) continue;
    if (entry.promptId === promptId) {
      seen = true;
      queued += queuedSince;
      queuedSince = 0;
    } else if (seen && entry.promptId !== undefined) break;
    for (const kind of entry.carried) kinds.add(kind);
    hooks.add(entry.hookOutput);
    if (entry.queued) queuedSince++;
  }
  if (!seen) return { checked: false, why: NO_ENTRY, noTranscript: false };
  return { checked: true, kinds: [...kinds], next, queued, ...hooks.found() };
}

/** Other hooks' output met in the lines read: each kind once, and whether one wrote a prompt. */
class HookOutputs {
  private readonly what = new Set<string>();
  private prompt = false;

  add(output: HookOutput | null): void {
    if (output === null) return;
    this.what.add(output.what);
    this.prompt ||= output.asPrompt;
  }

  found(): { readonly hookOutputs: readonly string[]; readonly hookPrompt: boolean } {
    return { hookOutputs: [...this.what], hookPrompt: this.prompt };
  }
}

/** Where the last whole line of the file ends (0: there is none); null past the read limit. */
function endOfLastLine(fd: number, size: number, limits: ReadLimits): number | null {
  for (let position = size; position > 0; ) {
    if (size - position >= limits.maxRead) return null;
    const length = Math.min(limits.chunk, position);
    position -= length;
    const last = read(fd, position, length).lastIndexOf(NEWLINE);
    if (last >= 0) return position + last + 1;
  }
  return 0;
}

/**
 * The whole lines before `end` (which follows a newline), last first, without their newlines;
 * null once more than the read limit would be read.
 */
function* linesBack(fd: number, end: number, limits: ReadLimits): Generator<Buffer | null> {
  // `pending`: the bytes from `position` to the start of the last line given, ending in a newline.
  let position = end;
  let pending = Buffer.alloc(0);
  while (pending.length > 0 || position > 0) {
    const previous = pending.length < 2 ? -1 : pending.lastIndexOf(NEWLINE, pending.length - 2);
    if (previous >= 0 || (position === 0 && pending.length > 0)) {
      yield pending.subarray(previous + 1, pending.length - 1);
      pending = pending.subarray(0, previous + 1);
      continue;
    }
    if (end - position >= limits.maxRead) {
      yield null;
      return;
    }
    const length = Math.min(limits.chunk, position);
    position -= length;
    pending = Buffer.concat([read(fd, position, length), pending]);
  }
}

function tooLong(limits: ReadLimits): AttachmentCheck {
  return { checked: false, why: `the turn's transcript is longer than the ${limits.maxRead} bytes looked through`, noTranscript: false };
}

function read(fd: number, position: number, length: number): Buffer {
  const buffer = Buffer.alloc(length);
  let done = 0;
  while (done < length) {
    const got = readSync(fd, buffer, done, length - done, position + done);
    if (got === 0) break;
    done += got;
  }
  return buffer.subarray(0, done);
}

interface TurnEntry {
  readonly promptId: string | undefined;
  readonly carried: readonly string[];
  readonly queued: boolean;
  readonly hookOutput: HookOutput | null;
}

/**
 * A transcript line that is a user entry, a message queued into the turn, or another hook's
 * output: the prompt it files itself under (none for the last two) and what it carries.
 */
function userEntry(line: Buffer): TurnEntry | null {
  if (!line.includes('"user"') && !line.includes(QUEUED) && !line.includes(HOOK_OUTPUT_MARK)) return null;
  let entry: unknown;
  try {
    entry = JSON.parse(line.toString("utf8"));
  } catch {
    return null;
  }
  if (entry === null || typeof entry !== "object") return null;
  const { type, promptId, message, attachment } = entry as { type?: unknown; promptId?: unknown; message?: unknown; attachment?: unknown };
  // A field of no object shape reads as absent (`?.` on null; a string or a number has none).
  if (type === "attachment") {
    const queued = attachment as { type?: unknown; prompt?: unknown } | null | undefined;
    if (queued?.type === "queued_command") return { promptId: undefined, carried: carriedBlocks(queued.prompt), queued: true, hookOutput: null };
    const hookOutput = otherHookOutput(attachment);
    return hookOutput === null ? null : { promptId: undefined, carried: [], queued: false, hookOutput };
  }
  if (type !== "user") return null;
  const content = (message as { content?: unknown } | null | undefined)?.content;
  return { promptId: typeof promptId === "string" ? promptId : undefined, carried: carriedBlocks(content), queued: false, hookOutput: null };
}

/** The kinds of a message's blocks other than text and tool results (a string is text). */
function carriedBlocks(content: unknown): string[] {
  if (!Array.isArray(content)) return [];
  return content.flatMap((block: unknown) => {
    const kind = (block as { type?: unknown } | null | undefined)?.type;
    if (typeof kind !== "string") return ["a block of no known kind"];
    return NOT_CARRIED.has(kind) ? [] : [kind];
  });
}
