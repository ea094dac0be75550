import { lessTrusted, type TrustLevel } from "./trust-levels.js";

/**
 * Tools whose output carries what happened in another session: its transcript
 * (`sessions_history`, `sessions_search`, `transcripts`), previews of it (`sessions_list`,
 * `sessions`), its reply (`sessions_send`, `conversations_turn`), a sub-agent's result
 * (`sessions_spawn`, `sessions_yield`, `subagents`, `agents_wait`), a scheduled job's runs (`cron`,
 * and its new name `automations`: the run history holds each run's summary, which repeats what the
 * run read), a session's status card (`session_status`: another session's when it names one, and
 * its background task's line, below). Their catalogue trust says what the tool itself is; the
 * content they hand back is at least as tainted as the session it came from.
 */
export const CROSS_SESSION_TOOLS: ReadonlySet<string> = new Set([
  "sessions_history",
  "sessions_search",
  "sessions_list",
  "sessions",
  "transcripts",
  "sessions_send",
  "sessions_spawn",
  "sessions_yield",
  "subagents",
  "agents_wait",
  "conversations_turn",
  "conversations_send",
  "cron",
  "automations",
  "session_status",
]);

/** Tools whose output is about the calling session when neither the call nor the output names another. */
export const ABOUT_CALLER_UNLESS_NAMED: ReadonlySet<string> = new Set(["session_status"]);

/**
 * OpenClaw's `session_status` card names the session it is about, but its task line (`📌 Tasks: …`:
 * a background task's title and its progress, error or final summary, which repeat what the
 * task's run read) is of a run it does not name.
 */
const UNNAMED_RUN_LINE = "\u{1F4CC} Tasks: ";

/** Whether a cross-session tool's output shows a run it does not name (a session's task line). */
export function showsUnnamedRun(tool: string, output: unknown): boolean {
  if (tool !== "session_status") return false;
  const walk = (value: unknown, depth: number): boolean => {
    if (typeof value === "string") return value.includes(UNNAMED_RUN_LINE);
    if (value === null || typeof value !== "object") return false;
    // Deeper than a card is nested, unread: counted as showing one.
    if (depth >= MAX_DEPTH) return true;
    return Object.values(value as Record<string, unknown>).some((inner) => walk(inner, depth + 1));
  };
  return walk(output, 0);
}

/** Fields that name a session, in a call's arguments or in its (JSON) output. */
const SESSION_FIELDS: ReadonlySet<string> = new Set([
  "sessionKey",
  "sessionId",
  "childSessionKey",
  "targetSessionKey",
  "sourceSessionKey",
  "requesterSessionKey",
  "parentSessionKey",
]);

const MAX_DEPTH = 8;
const MAX_REFERENCES = 1000;

/**
 * Every session a call's arguments or output name in a session field, looking inside text that is
 * itself JSON (tool results often wrap their JSON in a text block). Bounded in depth and count: past
 * the bound the caller treats the output as naming a session it does not know.
 */
export function sessionReferences(params: unknown, output: unknown): { readonly refs: readonly string[]; readonly truncated: boolean } {
  const refs = new Set<string>();
  let truncated = false;
  const walk = (value: unknown, depth: number): void => {
    if (truncated) return;
    if (depth > MAX_DEPTH) {
      truncated = true;
      return;
    }
    if (typeof value === "string") {
      const trimmed = value.trim();
      // Objects, arrays, and JSON that was stringified twice.
      const json = ["{}", "[]", '""'].some((pair) => trimmed.length >= 2 && trimmed.startsWith(pair[0] as string) && trimmed.endsWith(pair[1] as string));
      if (json) {
        try {
          walk(JSON.parse(trimmed) as unknown, depth + 1);
        } catch {
          // Text that only looks like JSON names no session field.
        }
      }
      return;
    }
    if (Array.isArray(value)) {
      for (const item of value) walk(item, depth + 1);
      return;
    }
    if (value === null || typeof value !== "object") return;
    for (const [key, inner] of Object.entries(value as Record<string, unknown>)) {
      if (SESSION_FIELDS.has(key) && typeof inner === "string" && inner.trim() !== "") {
        refs.add(inner.trim());
        if (refs.size > MAX_REFERENCES) truncated = true;
      } else {
        walk(inner, depth + 1);
      }
    }
  };
  walk(params, 0);
  walk(output, 0);
  return { refs: [...refs], truncated };
}

export interface SessionContentLevel {
  readonly level: TrustLevel;
  /** The session that set the level (the least trusted one), or why none could be named. */
  readonly reason: string;
}

/**
 * The least trust the content of the named sessions can have. `levelOf` gives a session's taint
 * (its live taint and its watermark, whichever is worse) or undefined when the guard does not know
 * the session; `worstKnown` is the least trusted level of every session the guard holds. A session
 * the guard does not know (a key it was never told, one spawned a moment ago), output that names no
 * session or shows a run it does not name (`unnamedRun`), or a reading cut short counts at
 * `worstKnown`: whatever session it is, it is no better than the worst one here.
 */
export function sessionContentLevel(
  refs: readonly string[],
  truncated: boolean,
  levelOf: (sessionRef: string) => TrustLevel | undefined,
  worstKnown: TrustLevel,
  unnamedRun = false,
): SessionContentLevel {
  if (truncated) return { level: worstKnown, reason: "names more sessions than can be checked; counted at the worst session's level" };
  if (unnamedRun) return { level: worstKnown, reason: "shows a background task's run, which it does not name; counted at the worst session's level" };
  if (refs.length === 0) return { level: worstKnown, reason: "names no session; counted at the worst session's level" };
  let worst: SessionContentLevel = { level: "trusted", reason: `content of session ${refs[0] as string}` };
  for (const ref of refs) {
    const known = levelOf(ref);
    const level = known ?? worstKnown;
    if (lessTrusted(level, worst.level)) {
      worst = { level, reason: known === undefined ? `content of session ${ref}, unknown here, counted at the worst session's level (${level})` : `content of session ${ref} (at ${level})` };
    }
  }
  return worst;
}
