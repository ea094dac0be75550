import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { checkCommand, initCommand, signCommand, type SigCommandIo } from "../../src/sig/commands.js";
import { replayTrace, tempWorkspace, verdicts } from "./helpers.js";

/**
 * `provenant sig` in this process, in the workspace (the commands the CLI runs; in-process so that
 * a mutation run's sandbox, which has no built CLI, can run these tests too).
 */
function sigIo(cwd: string): SigCommandIo {
  return { cwd, env: process.env, out: () => {}, err: () => {}, readStdin: () => Promise.resolve(""), clock: () => Date.now() };
}

async function signedWorkspace(files: Record<string, string>, policies: Record<string, unknown> = {}, signer = "owner"): Promise<string> {
  const ws = tempWorkspace();
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(ws, path, ".."), { recursive: true });
    writeFileSync(join(ws, path), text);
  }
  expect(await initCommand(sigIo(ws), {})).toBe(0);
  const configPath = join(ws, ".sig", "config.json");
  const config = JSON.parse(readFileSync(configPath, "utf8"));
  writeFileSync(configPath, JSON.stringify({ ...config, files: policies }, null, 2));
  expect(await signCommand(sigIo(ws), Object.keys(files), { by: signer })).toBe(0);
  return ws;
}

describe("prompt signing in the guard's gate order", () => {
  it("verification gate: exec is blocked until verify runs in this turn, and again in the next turn; verify is owner-only", async () => {
    const ws = await signedWorkspace({ "llm/prompts/identity.txt": "You are {{name}}.\n" });
    const { lines } = replayTrace("verification-gate.jsonl", ws);
    expect(verdicts(lines)).toEqual(["v1:block@trusted", "v2:allow@trusted", "v3:allow@trusted", "v4:block@trusted", "v5:block@external"]);
    expect(lines[1]).toMatchObject({ result: { mode: "templates", allVerified: true, unlocked: true } });
  });

  it("mutation gate and update_and_sign: a direct write is pointed at update_and_sign; a signed owner message authorises the update; a forged source does not", async () => {
    const ws = await signedWorkspace(
      { "SOUL.md": "I am the original soul.\n" },
      { "SOUL.md": { mutable: true, authorizedIdentities: ["owner:*"], requireSignedSource: true } },
      "owner:+15551234:telegram",
    );
    const { lines } = replayTrace("update-and-sign.jsonl", ws);
    expect(verdicts(lines)).toEqual(["u1:block@trusted", "u2:allow@trusted", "u3:allow@trusted"]);
    expect((lines[0] as { reason: string }).reason).toContain("update_and_sign");
    expect(lines[1]).toMatchObject({ result: { approved: true, file: "SOUL.md" } });
    expect(lines[2]).toMatchObject({ result: { approved: false, denial: { code: "source_verification_failed" } } });
    expect(readFileSync(join(ws, "SOUL.md"), "utf8")).toBe("I am careful with money.\n");
    expect(await checkCommand(sigIo(ws), ["SOUL.md"], {})).toBe(0);
  });
});
