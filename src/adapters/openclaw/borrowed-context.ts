import type { ForeignText } from "./runtime-context.js";

/**
 * Runs OpenClaw starts by itself under a session of their own whose model context is another
 * conversation, which they do not name. The Skill Workshop's review (on by default, mode "auto")
 * follows a turn of ten or more model calls: its model reads the reviewed session's whole history,
 * pages and all, and may write, edit and run commands in the workshop's skills folder, whose
 * skills every later prompt lists. Its run id is all that tells such a run apart.
 */
const BORROWED_CONTEXT_RUNS: readonly { readonly runIdPrefix: string; readonly what: string }[] = [
  { runIdPrefix: "skill-workshop-review:", what: "OpenClaw's Skill Workshop review, whose context is a conversation it does not name" },
];

/**
 * What a run carries that the guard cannot trace to a session, or null. A conversation that
 * cannot be named cannot be vouched for: it counts as untrusted.
 */
export function borrowedContext(runId: string | undefined): ForeignText | null {
  const run = runId === undefined ? undefined : BORROWED_CONTEXT_RUNS.find((r) => runId.startsWith(r.runIdPrefix));
  return run === undefined ? null : { level: "untrusted", what: run.what };
}
