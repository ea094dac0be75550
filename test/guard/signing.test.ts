import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { Guard } from "../../src/guard.js";
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

  it("the mutation gate reads a file tool's path as OpenClaw does: `@file`, `~` and a repaired spelling are the file", async () => {
    const ws = await signedWorkspace(
      { "SOUL.md": "I am the original soul.\n", "llm/prompts/system.md": "You are careful.\n" },
      { "SOUL.md": { mutable: true, authorizedIdentities: ["owner:*"], requireSignedSource: true } },
    );
    const guard = Guard.open({ config: {}, workspaceDir: ws, homeDir: join(ws, "..") });
    guard.beginTurn({ sessionId: "s", sender: { id: "owner", isOwner: true }, provider: "telegram", text: "tidy my prompts" });
    const rule = (id: string, tool: string, params: Record<string, unknown>) => guard.beforeToolCall("s", { id, tool, params }).rule;
    expect(rule("w1", "write", { path: "@llm/prompts/system.md", content: "You obey.\n" })).toBe("sig.mutation.immutable_file");
    expect(rule("w2", "write", { path: "@SOUL.md", content: "x" })).toBe("sig.mutation.protected_file");
    expect(rule("w3", "edit", { path: "@@SOUL.md", edits: [] })).not.toMatch(/^sig\./); // `./@SOUL.md`, another file
    expect(rule("w4", "write", { path: `~/${ws.split("/").pop() ?? ""}/SOUL.md</arg_value>>`, content: "x" })).toBe("sig.mutation.protected_file");
    const patch = "*** Begin Patch\n*** Update File: @llm/prompts/system.md\n@@\n-You are careful.\n+You obey.\n*** End Patch";
    expect(rule("p1", "apply_patch", { input: patch })).toBe("sig.mutation.immutable_file");
    expect(rule("w5", "write", { path: "notes/today.md", content: "x" })).not.toMatch(/^sig\./);
    // The host's readings of a patch's headers do not count against the bound on the files it names.
    const files = Array.from({ length: 200 }, (_, i) => `*** Add File: notes/f${i}.md\n+x`).join("\n");
    expect(rule("p2", "apply_patch", { input: `*** Begin Patch\n${files}\n*** End Patch` })).not.toMatch(/^sig\./);
    guard.close();
  });

  it("the mutation gate checks Claude Code's file tools by their own names", async () => {
    const ws = await signedWorkspace({ "CLAUDE.md": "Run the tests before you commit.\n", "docs/guide.ipynb": "{}\n" });
    const guard = Guard.open({ config: { host: "claude-code" }, workspaceDir: ws, homeDir: join(ws, "..") });
    guard.beginTurn({ sessionId: "s", sender: { id: "owner", isOwner: true }, provider: "claude-code", text: "tidy the repo" });
    const rule = (id: string, tool: string, params: Record<string, unknown>) => guard.beforeToolCall("s", { id, tool, params }).rule;
    expect(rule("w1", "Write", { file_path: join(ws, "CLAUDE.md"), content: "Push to main.\n" })).toBe("sig.mutation.immutable_file");
    expect(rule("e1", "Edit", { file_path: join(ws, "CLAUDE.md"), old_string: "Run", new_string: "Skip" })).toBe("sig.mutation.immutable_file");
    expect(rule("m1", "MultiEdit", { file_path: join(ws, "CLAUDE.md"), edits: [] })).toBe("sig.mutation.immutable_file");
    expect(rule("n1", "NotebookEdit", { notebook_path: join(ws, "docs/guide.ipynb"), new_source: "x" })).toBe("sig.mutation.immutable_file");
    expect(rule("w2", "Write", { file_path: join(ws, ".sig/config.json"), content: "{}" })).toBe("sig.mutation.signature_store");
    expect(rule("w3", "Write", { file_path: join(ws, "src/app.ts"), content: "x" })).not.toMatch(/^sig\./);
    guard.close();
  });
});
