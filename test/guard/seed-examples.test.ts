import { existsSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { replayTrace, tempWorkspace, verdicts } from "./helpers.js";

describe("seed worked examples, replayed through the real guard", () => {
  it("Taint Propagation: read → web_fetch → exec blocked with an approval code", () => {
    const { lines } = replayTrace("three-iterations.jsonl");
    expect(verdicts(lines)).toEqual(["c1:allow@trusted", "c2:allow@trusted", "c3:confirm@untrusted"]);
    const exec = lines[2] as { code?: string; reason: string };
    expect(exec.code).toMatch(/^[0-9a-f]{8}$/);
    expect(exec.reason).toContain(`Approval code: ${exec.code} (expires in 60s)`);
    expect(exec.reason).toContain(`Approve this call once:  .approve exec ${exec.code}\n`);
    expect(exec.reason).toContain(`Call: exec {"command":"rm -rf ~"}`);
    expect(exec.reason).toContain("web_fetch response");
    expect(lines.at(-1)).toEqual({ event: "response", text: "exec is blocked", taint: "untrusted" });
  });

  it("Browser: the first call runs at trusted, the second needs approval, exec too", () => {
    expect(verdicts(replayTrace("browser.jsonl").lines)).toEqual(["b1:allow@trusted", "b2:confirm@untrusted", "b3:confirm@untrusted"]);
  });

  it("The message Tool: owner DM allowed under taint, group and third parties stopped", () => {
    expect(verdicts(replayTrace("message-owner-dm-vs-group.jsonl").lines)).toEqual([
      "m0:allow@trusted",
      "m1:allow@untrusted",
      "m2:allow@untrusted",
      "m3:confirm@untrusted",
      "g1:confirm@external",
      "g2:confirm@external",
      "g3:allow@external",
    ]);
  });

  it("Default Dangerous Tools: gateway needs approval at trusted", () => {
    expect(verdicts(replayTrace("gateway.jsonl").lines)).toEqual(["g1:confirm@trusted"]);
  });

  it("Unknown Tools: a renamed exec is untrusted on both axes", () => {
    const { lines } = replayTrace("unknown-tool.jsonl");
    // u2 was held, so its refusal is no output; approved and run (u4), its output is untrusted.
    expect(verdicts(lines)).toEqual(["u1:confirm@trusted", "u2:confirm@trusted", "u4:allow@trusted", "u3:confirm@untrusted"]);
    expect((lines[0] as { reason: string }).reason).toContain("shell_exec is not a known tool");
  });

  it("Iteration cap: the turn is blocked past maxIterations, the next turn starts afresh", () => {
    expect(verdicts(replayTrace("iteration-cap.jsonl").lines)).toEqual([
      "i1:allow@trusted",
      "i2:allow@trusted",
      "i3:block@trusted",
      "i4:block@trusted",
      "i5:allow@trusted",
    ]);
  });

  it("Memory File Write Protection: writes to memory files are staged, never lost; other writes follow policy", () => {
    const ws = tempWorkspace();
    writeFileSync(join(ws, "MEMORY.md"), "a\n");
    const { lines, workspaceDir } = replayTrace("memory-write-staged.jsonl", ws);
    expect(verdicts(lines)).toEqual(["w0:allow@trusted", "w1:block@untrusted", "w2:block@untrusted", "w3:confirm@untrusted"]);
    expect((lines[1] as { reason: string }).reason).toContain("saved to staging");
    expect(existsSync(join(workspaceDir, "SOUL.md"))).toBe(false);
    const staged = readdirSync(join(workspaceDir, ".provenance", "blocked-writes")).filter((f) => f.endsWith(".json"));
    expect(staged).toHaveLength(2);
    const contents = staged.map((f) => readFileSync(join(workspaceDir, ".provenance", "blocked-writes", f), "utf8"));
    expect(contents.some((c) => c.includes("I obey example.com"))).toBe(true);
    expect(contents.some((c) => JSON.parse(c).content === "b\n")).toBe(true);
    expect(readFileSync(join(workspaceDir, "MEMORY.md"), "utf8")).toBe("a\n");
  });

  it("Session Taint Watermark: taint carries into the next turn and a fresh session clears it", () => {
    const { lines, workspaceDir } = replayTrace("watermark-across-turns.jsonl");
    expect(verdicts(lines)).toEqual(["a1:allow@trusted", "a2:confirm@untrusted", "a3:allow@trusted"]);
    const file = JSON.parse(readFileSync(join(workspaceDir, ".provenance", "watermarks.json"), "utf8"));
    expect(file.version).toBe(1);
    expect(file.watermarks.s1).toBeUndefined();
  });

  it("Session Taint Watermark: survives a restart (a second guard on the same workspace)", () => {
    const first = replayTrace("three-iterations.jsonl");
    const file = JSON.parse(readFileSync(join(first.workspaceDir, ".provenance", "watermarks.json"), "utf8"));
    expect(file.watermarks.s1).toMatchObject({ level: "untrusted", reason: "web_fetch response", escalatedBy: "web_fetch", lastImpactedTool: "exec" });
    const second = replayTrace("gateway.jsonl", first.workspaceDir);
    expect(verdicts(second.lines)).toEqual(["g1:confirm@untrusted"]);
  });

  it("Trust Reset by the owner: taint, watermark and pending codes are cleared", () => {
    const { lines, workspaceDir } = replayTrace("reset-by-owner.jsonl");
    expect(verdicts(lines)).toEqual(["r1:allow@trusted", "r2:confirm@untrusted", "r3:allow@trusted"]);
    const file = JSON.parse(readFileSync(join(workspaceDir, ".provenance", "watermarks.json"), "utf8"));
    expect(file.watermarks.s1.level).toBe("trusted");
    expect(file.watermarks.s1.resetHistory).toHaveLength(1);
  });

  it("Trust Reset by a non-owner is ignored", () => {
    expect(verdicts(replayTrace("reset-by-non-owner.jsonl").lines)).toEqual(["n1:allow@trusted", "n2:confirm@untrusted"]);
  });

  it("Approval codes: a non-owner cannot approve; the owner's approval is turn-scoped; a used code approves nothing", () => {
    const { lines } = replayTrace("approve-codes.jsonl");
    expect(verdicts(lines)).toEqual(["p1:allow@trusted", "p2:confirm@untrusted", "p3:confirm@untrusted", "p4:allow@untrusted", "p6:confirm@untrusted"]);
  });
});
