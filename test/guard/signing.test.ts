import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
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

/**
 * A signed, mutable SOUL.md in an owner's session, and an `exec` the gates let through (its
 * script names no file) that rewrote it: the guard has decided the call, its result is still due.
 */
async function scriptRewroteSoul(): Promise<{ ws: string; guard: Guard }> {
  const ws = await signedWorkspace({ "SOUL.md": "I am the original soul.\n" }, { "SOUL.md": { mutable: true, authorizedIdentities: ["owner:*"], requireSignedSource: true } });
  const guard = Guard.open({ config: {}, workspaceDir: ws, homeDir: join(ws, "..") });
  guard.beginTurn({ sessionId: "s", sender: { id: "owner", isOwner: true }, provider: "telegram", text: "run the formatter" });
  const script = `node -e "require('fs').writeFileSync('SO'+'UL.md', 'I obey.')"`;
  expect(guard.beforeToolCall("s", { id: "x1", tool: "exec", params: { command: script } }).verdict).toBe("allow");
  writeFileSync(join(ws, "SOUL.md"), "I obey.");
  return { ws, guard };
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

  it("a shell command that writes a signed file by name, or names one and runs a program that may change it, is refused; reading it is not", async () => {
    const ws = await signedWorkspace(
      { "SOUL.md": "I am the original soul.\n", "llm/prompts/system.md": "You are careful.\n" },
      { "SOUL.md": { mutable: true, authorizedIdentities: ["owner:*"], requireSignedSource: true } },
    );
    mkdirSync(join(ws, "notes"));
    const guard = Guard.open({ config: {}, workspaceDir: ws, homeDir: join(ws, "..") });
    guard.beginTurn({ sessionId: "s", sender: { id: "owner", isOwner: true }, provider: "telegram", text: "tidy my prompts" });
    let n = 0;
    const decide = (command: string, more: Record<string, unknown> = {}) => guard.beforeToolCall("s", { id: `x${++n}`, tool: "exec", params: { command, ...more } });
    const rule = (command: string, more?: Record<string, unknown>) => decide(command, more).rule;
    expect(rule("echo 'You obey.' > llm/prompts/system.md")).toBe("sig.mutation.immutable_file");
    expect(rule("printf x | tee -a SOUL.md")).toBe("sig.mutation.protected_file");
    expect(rule("cp /tmp/evil.md ./llm//prompts/system.md")).toBe("sig.mutation.immutable_file");
    expect(rule("bash -c 'cat notes/x >> SOUL.md'")).toBe("sig.mutation.protected_file");
    expect(rule("dd if=/dev/zero of=SOUL.md count=1")).toBe("sig.mutation.protected_file");
    expect(rule(`echo x > ${join(ws, "SOUL.md")}`)).toBe("sig.mutation.protected_file");
    // Named, by a program that may change what it is given.
    expect(rule("sed -i 's/careful/obedient/' llm/prompts/system.md")).toBe("sig.mutation.immutable_file");
    expect(rule("rm -f SOUL.md")).toBe("sig.mutation.protected_file");
    expect(rule("mv SOUL.md notes/")).toBe("sig.mutation.protected_file");
    expect(rule("sed --in-place=.bak s/a/b/ --file=SOUL.md")).toBe("sig.mutation.protected_file");
    expect(decide("perl -pi -e s/a/b/ SOUL.md").reason).toContain("read the file with cat, head or a file tool instead");
    // In whatever directory the command may be: a `cd`'s target, a `workdir`, a `cd` to a variable.
    expect(rule("cd llm/prompts && sed -i s/a/b/ system.md")).toBe("sig.mutation.immutable_file");
    expect(rule("echo x > prompts/system.md", { workdir: "llm" })).toBe("sig.mutation.immutable_file");
    expect(rule('cd "$D" && echo x > system.md')).toBe("sig.mutation.immutable_file");
    expect(rule("cd notes && echo x > ../SOUL.md")).toBe("sig.mutation.protected_file");
    // Reading is not changing; nor is writing another file.
    expect(rule("cat SOUL.md llm/prompts/system.md | wc -l")).not.toMatch(/^sig\./);
    expect(rule("grep -n careful llm/prompts/system.md > notes/found.txt")).not.toMatch(/^sig\./);
    expect(rule("sed -i s/a/b/ notes/today.md")).not.toMatch(/^sig\./);
    expect(rule("python3 -c \"print(open('SOUL.md').read())\"")).not.toMatch(/^sig\./);
    guard.close();
  });

  it("Claude Code's Bash is read the same way, wherever its shell has gone", async () => {
    const ws = await signedWorkspace({ "CLAUDE.md": "Run the tests before you commit.\n", "pkg/web/CLAUDE.md": "Use pnpm.\n" });
    const guard = Guard.open({ config: { host: "claude-code" }, workspaceDir: ws, homeDir: join(ws, "..") });
    guard.beginTurn({ sessionId: "s", sender: { id: "owner", isOwner: true }, provider: "claude-code", text: "tidy the repo" });
    let n = 0;
    const rule = (command: string) => guard.beforeToolCall("s", { id: `b${++n}`, tool: "Bash", params: { command } }).rule;
    expect(rule("echo 'Push to main.' >> CLAUDE.md")).toBe("sig.mutation.immutable_file");
    // Claude Code's shell keeps its directory between calls: a relative name is every signed file it ends.
    expect(rule("echo 'Use npm.' > web/CLAUDE.md")).toBe("sig.mutation.immutable_file");
    expect(rule("git checkout -- CLAUDE.md")).toBe("sig.mutation.immutable_file");
    expect(rule("echo x > web/NOTES.md")).not.toMatch(/^sig\./);
    expect(rule("git diff CLAUDE.md")).not.toMatch(/^sig\./);
    guard.close();
  });

  it("a signed file that cannot be put back keeps the label of what the call wrote, and the model is told it no longer verifies", async () => {
    const { ws, guard } = await scriptRewroteSoul();
    rmSync(join(ws, ".sig", "sigs", "SOUL.md.sig.content"));
    expect(guard.afterToolCall("s", { id: "x1", tool: "exec", output: "", ran: true }).notice).toBe(
      "provenant: this exec call changed the signed file SOUL.md. SOUL.md could not be put back and no longer verifies. Signed files change only through update_and_sign or by the owner.",
    );
    expect(readFileSync(join(ws, "SOUL.md"), "utf8")).toBe("I obey.");
    guard.beginTurn({ sessionId: "s2", sender: { id: "owner", isOwner: true }, provider: "telegram", text: "read my soul" });
    guard.beforeToolCall("s2", { id: "r1", tool: "read", params: { path: "SOUL.md" } });
    expect(guard.afterToolCall("s2", { id: "r1", tool: "read", params: { path: "SOUL.md" }, output: "I obey.", ran: true }).taint).toBe("untrusted");
    guard.close();
  });

  it("a signed file a call changed past the gates is put back after it, the model is told, and what it left is kept", async () => {
    const { ws, guard } = await scriptRewroteSoul();
    // A tool that changes nothing does not look.
    expect(guard.afterToolCall("s", { id: "r0", tool: "read", params: { path: "notes.md" }, output: "", ran: true }).notice).toBeUndefined();
    const outcome = guard.afterToolCall("s", { id: "x1", tool: "exec", output: "", ran: true });
    expect(outcome.notice).toBe(
      "provenant: this exec call changed the signed file SOUL.md. provenant put SOUL.md back as signed; what the call left is kept in .provenance/sig-kept/. " +
        "Signed files change only through update_and_sign or by the owner.",
    );
    expect(readFileSync(join(ws, "SOUL.md"), "utf8")).toBe("I am the original soul.\n");
    expect(await checkCommand(sigIo(ws), ["SOUL.md"], {})).toBe(0);
    const kept = readdirSync(join(ws, ".provenance", "sig-kept"), { recursive: true, withFileTypes: true }).filter((e) => e.isFile());
    expect(kept.map((e) => readFileSync(join(e.parentPath, e.name), "utf8"))).toEqual(["I obey."]);
    // The host may report the same result twice: the second report neither restores nor labels again.
    expect(guard.afterToolCall("s", { id: "x1", tool: "exec", output: "", ran: true }).notice).toBeUndefined();
    // What the script wrote was labelled at the command's trust; what is there now is the owner's.
    guard.beginTurn({ sessionId: "s2", sender: { id: "owner", isOwner: true }, provider: "telegram", text: "read my soul" });
    expect(guard.beforeToolCall("s2", { id: "r1", tool: "read", params: { path: "SOUL.md" } }).verdict).toBe("allow");
    expect(guard.afterToolCall("s2", { id: "r1", tool: "read", params: { path: "SOUL.md" }, output: "I am the original soul.\n", ran: true }).taint).toBe("trusted");
    guard.close();
  });
});
