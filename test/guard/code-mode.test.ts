import { describe, expect, it } from "vitest";
import { replayTrace, verdicts } from "./helpers.js";

/**
 * OpenClaw's Code Mode, replayed as the pinned host emits it (test/e2e/openclaw-code-mode-redteam.test.ts
 * has the same in the real program): its `exec` runs `{code}`, JavaScript, and the hooks see
 * `{code, command: code}`. The script is not read as a shell command.
 */
describe("Code Mode through the guard", () => {
  const { lines } = replayTrace("code-mode.jsonl");
  const byId = new Map(lines.flatMap((l) => ("id" in l ? [[l.id, l as { reason: string }] as const] : [])));

  it("a script's result is untrusted, even one that reads as a local shell command; the same text run by the shell is not", () => {
    expect(verdicts(lines).slice(0, 4)).toEqual(["call_1:allow@trusted", "call_2:confirm@untrusted", "call_3:allow@trusted", "call_4:allow@trusted"]);
    expect(byId.get("call_2")?.reason).toContain("exec response: a Code Mode script, which reads past its tool calls");
  });

  it("a script is judged as the script the host runs, not by the command written beside it", () => {
    expect(verdicts(lines).slice(4, 6)).toEqual(["call_5:allow@trusted", "call_6:confirm@untrusted"]);
  });

  it("wait runs at trusted (the taint policy's, not an unknown tool's) and its result, the script's, is untrusted", () => {
    expect(verdicts(lines).slice(6)).toEqual(["call_7:allow@trusted", "call_8:confirm@untrusted"]);
    expect(byId.get("call_8")?.reason).toContain("taintPolicy.untrusted is confirm");
  });
});
