import { readFileSync } from "node:fs";
import { join } from "node:path";
import { runReplay, type ReplayLine } from "../../src/adapters/replay/replay-runner.js";
import { parseTrace } from "../../src/adapters/replay/trace-events.js";
import { encodeScope } from "../../src/auth/action-scope.js";
import type { AuthConfigInput } from "../../src/auth/config.js";
import { loadKeyFile, saveKeyFile } from "../../src/auth/key-file.js";
import { Guard } from "../../src/guard.js";
import { katRing, RecordingAudit, T0 } from "./helpers.js";
import { tempDir } from "../temp-dirs.js";

export const AUTH_TRACE_DIR = join(import.meta.dirname, "traces");

export interface TurnOutcome {
  readonly session: string;
  readonly outcome: string;
}

/**
 * Runs a trace through the real replay runner and the real guard with message authentication
 * on (`auth` config, keys from a key file, the clock fixed at the traces' signing time), exactly
 * as `provenant replay --auth-key <file> --now <time>` does.
 */
export function replayWithAuth(name: string, authConfig: AuthConfigInput = { mode: "enforce", peers: ["agent:roy:*"] }) {
  const dir = tempDir("provenant-authtrace-");
  const keyFile = join(dir, "auth.keys");
  saveKeyFile(keyFile, katRing());
  const audit = new RecordingAudit();
  const turns: TurnOutcome[] = [];
  const flaggedClaims: string[] = [];

  const lines: ReplayLine[] = runReplay(parseTrace(readFileSync(join(AUTH_TRACE_DIR, name), "utf8")), {
    openGuard: (config) => Guard.open({ config: { ...config, auth: authConfig }, workspaceDir: dir, audit, authKeys: loadKeyFile(keyFile), now: () => T0 }),
    onStep: (step) => {
      if (step.kind === "turn") {
        const a = step.start.authentication;
        if (a === undefined) return;
        const refusal = audit.records.filter((r) => r.data["kind"] === "message-refused").at(-1);
        turns.push({ session: step.event.session, outcome: a.accepted ? `${a.source}:${encodeScope(new Set(a.scope as never[]))}` : `refused:${String(refusal?.data["check"])}` });
      }
      if (step.kind === "response") flaggedClaims.push(...(step.outcome.ungroundedClaims ?? []));
    },
  });
  const unverifiedResults = audit.records.filter((r) => r.data["event"] === "tool-result-unverified").map((r) => `${String(r.data["tool"])}:${String(r.data["check"])}`);
  return { lines, turns, flaggedClaims, unverifiedResults, audit };
}

/** Tool-call lines as `id:verdict`, for compact assertions. */
export function outcomes(lines: readonly ReplayLine[]): string[] {
  return lines.flatMap((l) => ("id" in l ? [`${l.id}:${l.verdict}`] : []));
}
