import { linkSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { commandFiles } from "../../src/core/command-files.js";
import { readExec } from "../../src/core/exec-trust.js";
import type { GateCall } from "../../src/core/gate.js";
import { createMutationGate } from "../../src/sig/mutation-gate.js";
import { RealPathResolver } from "../../src/sig/real-path.js";
import { SigRuntime } from "../../src/sig/runtime.js";
import { signFile } from "../../src/sig/sign-file.js";
import { fixedClock, ProjectFixture, SOUL_POLICY_CONFIG } from "./project-fixture.js";

let fixture: ProjectFixture;

function runtime(caseInsensitive = false): SigRuntime {
  return new SigRuntime({ projectRoot: fixture.root, clock: fixedClock(), caseInsensitive, homeDir: dirname(fixture.root) });
}

function call(tool: string, params: Record<string, unknown>, senderIsOwner: boolean | null = true): GateCall {
  return { sessionId: "s1", turnId: "t1", tool, params, taint: "trusted", senderIsOwner };
}

function ruleFor(rt: SigRuntime, tool: string, params: Record<string, unknown>): string | undefined {
  return rt.mutationGate.check(call(tool, params))?.rule;
}

beforeEach(() => {
  fixture = new ProjectFixture();
  fixture.config(SOUL_POLICY_CONFIG);
  fixture.write("soul.md", "soul\n");
  fixture.write("llm/prompts/identity.txt", "You are {{ name }}.\n");
  fixture.write("notes/signed.txt", "signed but no policy\n");
  fixture.write("notes/free.txt", "free\n");
  const ctx = fixture.context();
  signFile(ctx, "soul.md", { identity: "workspace:init" });
  signFile(ctx, "llm/prompts/identity.txt", { identity: "openclaw" });
  signFile(ctx, "notes/signed.txt", { identity: "openclaw" });
});
afterEach(() => fixture.remove());

describe("mutation gate: direct targets", () => {
  it("blocks write and edit to a mutable policy file and points at update_and_sign", () => {
    const rt = runtime();
    const verdict = rt.mutationGate.check(call("write", { path: "soul.md", content: "x" }));
    expect(verdict).toMatchObject({ verdict: "block", rule: "sig.mutation.protected_file" });
    expect(verdict?.reason).toContain("update_and_sign");
    expect(ruleFor(rt, "edit", { file_path: "soul.md", old_string: "a", new_string: "b" })).toBe("sig.mutation.protected_file");
  });

  it("blocks immutable policy files, signed files without a policy, and the signature store", () => {
    const rt = runtime();
    expect(ruleFor(rt, "write", { path: "llm/prompts/identity.txt" })).toBe("sig.mutation.immutable_file");
    expect(ruleFor(rt, "write", { path: "llm/prompts/new.txt" })).toBe("sig.mutation.immutable_file");
    expect(ruleFor(rt, "write", { path: "notes/signed.txt" })).toBe("sig.mutation.immutable_file");
    expect(ruleFor(rt, "write", { path: ".sig/sigs/soul.md.sig.json" })).toBe("sig.mutation.signature_store");
    expect(ruleFor(rt, "edit", { path: ".sig/config.json" })).toBe("sig.mutation.signature_store");
    expect(ruleFor(rt, "write", { path: ".sig" })).toBe("sig.mutation.signature_store");
  });

  it("lets other files and other tools through, for every sender", () => {
    const rt = runtime();
    expect(ruleFor(rt, "write", { path: "notes/free.txt" })).toBeUndefined();
    expect(ruleFor(rt, "write", { path: "notes/new.md" })).toBeUndefined();
    expect(ruleFor(rt, "write", { path: join(tmpdir(), "elsewhere.txt") })).toBeUndefined();
    expect(ruleFor(rt, "read", { path: "soul.md" })).toBeUndefined();
    expect(ruleFor(rt, "exec", { command: "cat soul.md" })).toBeUndefined();
    expect(rt.mutationGate.check(call("write", { path: "soul.md" }, false))).toBeDefined();
  });

  it("checks every path-like parameter, not just the first", () => {
    const rt = runtime();
    expect(ruleFor(rt, "write", { path: "notes/free.txt", file_path: "soul.md" })).toBe("sig.mutation.protected_file");
    expect(ruleFor(rt, "write", { filePath: "soul.md" })).toBe("sig.mutation.protected_file");
  });
});

describe("mutation gate: path tricks", () => {
  it.each([
    "./soul.md",
    "././soul.md",
    "notes/../soul.md",
    "notes/./../llm/../soul.md",
    "soul.md/",
    "notes/missing-dir/../../soul.md",
  ])("resolves %s to the protected file", (path) => {
    expect(ruleFor(runtime(), "write", { path })).toBe("sig.mutation.protected_file");
  });

  it("resolves absolute paths, ~ and file:// URLs", () => {
    const rt = runtime();
    expect(ruleFor(rt, "write", { path: fixture.path("soul.md") })).toBe("sig.mutation.protected_file");
    expect(ruleFor(rt, "write", { path: `${fixture.root}//notes/..//soul.md` })).toBe("sig.mutation.protected_file");
    expect(ruleFor(rt, "write", { path: `~/${fixture.root.split("/").pop() ?? ""}/soul.md` })).toBe("sig.mutation.protected_file");
    expect(ruleFor(rt, "write", { path: pathToFileURL(fixture.path("soul.md")).href })).toBe("sig.mutation.protected_file");
  });

  it("follows a symlink to the protected file, and chains of them", () => {
    symlinkSync("soul.md", fixture.path("alias.md"));
    symlinkSync("alias.md", fixture.path("alias2.md"));
    symlinkSync(fixture.path(".sig"), fixture.path("notes/sigdir"));
    const rt = runtime();
    expect(ruleFor(rt, "write", { path: "alias.md" })).toBe("sig.mutation.protected_file");
    expect(ruleFor(rt, "write", { path: "alias2.md" })).toBe("sig.mutation.protected_file");
    expect(ruleFor(rt, "write", { path: "notes/sigdir/config.json" })).toBe("sig.mutation.signature_store");
  });

  it("resolves '..' after a symlinked directory the way the kernel does, not lexically", () => {
    mkdirSync(fixture.path("deep/inner"), { recursive: true });
    symlinkSync(fixture.path("deep/inner"), fixture.path("jump"));
    // Lexically "jump/../../soul.md" leaves the project; the kernel lands on soul.md.
    expect(ruleFor(runtime(), "write", { path: "jump/../../soul.md" })).toBe("sig.mutation.protected_file");
  });

  it("reaches the project through a symlink from outside it", () => {
    const outside = mkdtempSync(join(tmpdir(), "provenant-outside-"));
    try {
      symlinkSync(fixture.root, join(outside, "proj"));
      expect(ruleFor(runtime(), "write", { path: join(outside, "proj", "soul.md") })).toBe("sig.mutation.protected_file");
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  });

  it("follows a dangling symlink to where it would write", () => {
    symlinkSync("llm/prompts/new-template.txt", fixture.path("dangling.txt"));
    expect(ruleFor(runtime(), "write", { path: "dangling.txt" })).toBe("sig.mutation.immutable_file");
  });

  it("blocks a symlink loop as unresolvable", () => {
    symlinkSync("loop-b", fixture.path("loop-a"));
    symlinkSync("loop-a", fixture.path("loop-b"));
    expect(ruleFor(runtime(), "write", { path: "loop-a" })).toBe("sig.mutation.unresolved_path");
    expect(ruleFor(runtime(), "write", { path: "soul\0.md" })).toBe("sig.mutation.unresolved_path");
  });

  it("sees through hard links, inside and outside the project", () => {
    linkSync(fixture.path("soul.md"), fixture.path("notes/hard.md"));
    const outside = mkdtempSync(join(tmpdir(), "provenant-outside-"));
    try {
      linkSync(fixture.path("soul.md"), join(outside, "hard.md"));
      const rt = runtime();
      expect(ruleFor(rt, "write", { path: "notes/hard.md" })).toBe("sig.mutation.protected_file");
      expect(ruleFor(rt, "write", { path: join(outside, "hard.md") })).toBe("sig.mutation.protected_file");
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  });

  it("folds case on a case-insensitive file system", () => {
    expect(ruleFor(runtime(true), "write", { path: "SOUL.md" })).toBe("sig.mutation.protected_file");
    expect(ruleFor(runtime(true), "write", { path: "LLM/Prompts/Identity.TXT" })).toBe("sig.mutation.immutable_file");
    expect(ruleFor(runtime(true), "write", { path: ".SIG/config.json" })).toBe("sig.mutation.signature_store");
    // On this case-sensitive file system SOUL.md is a different file.
    expect(ruleFor(runtime(false), "write", { path: "SOUL.md" })).toBeUndefined();
  });
});

describe("mutation gate: apply_patch", () => {
  const rt = (): SigRuntime => runtime();

  it("reads the apply_patch format's file headers", () => {
    const patch = "*** Begin Patch\n*** Update File: notes/free.txt\n@@\n-free\n+x\n*** Update File: soul.md\n@@\n-soul\n+evil\n*** End Patch\n";
    expect(ruleFor(rt(), "apply_patch", { input: patch })).toBe("sig.mutation.protected_file");
    expect(ruleFor(rt(), "apply_patch", { input: "*** Begin Patch\n*** Delete File: ./soul.md\n*** End Patch" })).toBe("sig.mutation.protected_file");
    expect(ruleFor(rt(), "apply_patch", { input: "*** Begin Patch\n*** Update File: notes/free.txt\n*** Move to: soul.md\n*** End Patch" })).toBe(
      "sig.mutation.protected_file",
    );
    expect(ruleFor(rt(), "apply_patch", { input: "*** Begin Patch\n*** Add File: notes/new.md\n+hello\n*** End Patch" })).toBeUndefined();
  });

  it("reads unified and git diff headers, with and without a/ b/ prefixes", () => {
    expect(ruleFor(rt(), "apply_patch", { patch: "--- a/soul.md\n+++ b/soul.md\n@@ -1 +1 @@\n-soul\n+evil\n" })).toBe("sig.mutation.protected_file");
    expect(ruleFor(rt(), "apply_patch", { patch: "--- soul.md\t2026-01-01\n+++ soul.md\t2026-01-02\n" })).toBe("sig.mutation.protected_file");
    expect(ruleFor(rt(), "apply_patch", { patch: "diff --git a/notes/free.txt b/soul.md\nsimilarity index 90%\nrename from notes/free.txt\nrename to soul.md\n" })).toBe(
      "sig.mutation.protected_file",
    );
    expect(ruleFor(rt(), "apply_patch", { patch: "diff --git a/x b/x\r\n--- a/.sig/config.json\r\n+++ b/.sig/config.json\r\n" })).toBe("sig.mutation.signature_store");
  });

  it("blocks a patch whose targets cannot be read", () => {
    expect(ruleFor(rt(), "apply_patch", { input: "please change soul.md" })).toBe("sig.mutation.unreadable_patch");
    expect(ruleFor(rt(), "apply_patch", {})).toBe("sig.mutation.unreadable_patch");
    const many = Array.from({ length: 300 }, (_, i) => `*** Add File: notes/f${i}.md`).join("\n");
    expect(ruleFor(rt(), "apply_patch", { input: many })).toBe("sig.mutation.unreadable_patch");
  });
});

describe("mutation gate: the framework's derived-path hint", () => {
  it("checks hinted paths alongside the parameters", () => {
    const rt = runtime();
    const c = call("write", { path: "notes/free.txt" });
    expect(rt.mutationGate.checkWithHints(c, [])).toBeUndefined();
    expect(rt.mutationGate.checkWithHints(c, [fixture.path("soul.md")])).toMatchObject({ rule: "sig.mutation.protected_file" });
    expect(rt.mutationGate.checkWithHints(call("apply_patch", {}), ["soul.md"])).toMatchObject({ rule: "sig.mutation.protected_file" });
  });

  it("a tool the guard says writes files is a write whatever its name; one that reads them is not", () => {
    const rt = runtime();
    const hostCall = (tool: string, writes: boolean, paths: string[]) => ({ ...call(tool, { file_path: "notes/free.txt" }), files: { writes, paths } });
    expect(rt.mutationGate.check(hostCall("Write", true, ["soul.md"]))).toMatchObject({ rule: "sig.mutation.protected_file" });
    expect(rt.mutationGate.check(hostCall("Write", true, ["notes/free.txt"]))).toBeUndefined();
    expect(rt.mutationGate.check({ ...call("NotebookEdit", { notebook_path: "notes/signed.txt" }), files: { writes: true, paths: [] } })).toMatchObject({
      rule: "sig.mutation.immutable_file",
    });
    expect(rt.mutationGate.check(hostCall("Read", false, ["soul.md"]))).toBeUndefined();
    expect(rt.mutationGate.check(call("Write", { file_path: "soul.md" }))).toBeUndefined(); // no word from the guard: not one of writeTools
  });
});

describe("mutation gate: what the hard-link search, the patch reading and the refusals cover", () => {
  it("a hard link to a policy file that is not signed yet is that file (policies without a wildcard are candidates)", () => {
    fixture.write("agents.md", "agents\n");
    linkSync(fixture.path("agents.md"), fixture.path("notes/agents-copy.md"));
    expect(ruleFor(runtime(), "write", { path: "notes/agents-copy.md" })).toBe("sig.mutation.protected_file");
  });

  it("a file header in any string parameter of a patch tool counts, on a line of its own", () => {
    const free = "*** Begin Patch\n*** Update File: notes/free.txt\n@@\n-free\n+x\n*** End Patch";
    expect(ruleFor(runtime(), "apply_patch", { input: free })).toBeUndefined();
    expect(ruleFor(runtime(), "apply_patch", { input: free, note: "*** Update File: soul.md" })).toBe("sig.mutation.protected_file");
    expect(ruleFor(runtime(), "apply_patch", { input: free, count: 3, dry: false })).toBeUndefined();
  });

  it("a patch may name 256 files; one more is refused", () => {
    const naming = (n: number) => Array.from({ length: n }, (_, i) => `*** Add File: notes/f${i}.md`).join("\n");
    expect(ruleFor(runtime(), "apply_patch", { input: naming(256) })).toBeUndefined();
    expect(runtime().mutationGate.check(call("apply_patch", { input: naming(257) }))).toEqual({
      verdict: "block",
      rule: "sig.mutation.unreadable_patch",
      reason: "apply_patch: the patch names more than 256 files.",
    });
  });

  it("the signing key is refused to every tool, by whichever name the host reads", () => {
    const key = fixture.write("keys/signing.pem", "KEY\n");
    const gate = createMutationGate({
      resolver: new RealPathResolver(fixture.root, { caseInsensitive: false }),
      config: () => ({ version: 1 }),
      writeTools: ["write"],
      patchTools: [],
      isSigned: () => false,
      signedFiles: () => [],
      forbiddenPaths: [key],
    });
    const refusal = { verdict: "block", rule: "sig.mutation.signing_key", reason: "read cannot touch the prompt-signing key." };
    expect(gate.check(call("read", { path: "keys/signing.pem" }))).toEqual(refusal);
    expect(gate.check({ ...call("read", { path: "@keys/signing.pem" }), files: { writes: false, paths: ["keys/signing.pem"] } })).toEqual(refusal);
    expect(gate.check(call("read", { path: "keys/other.pem" }))).toBeUndefined();
    expect(gate.check(call("read", { path: "a\0b" }))).toBeUndefined();
  });

  it("says what was refused, why, and what to do instead", () => {
    const rt = runtime();
    const reason = (tool: string, params: Record<string, unknown>) => rt.mutationGate.check(call(tool, params))?.reason;
    expect(rt.mutationGate.name).toBe("sig.mutation");
    expect(reason("write", { path: "soul.md" })).toBe(
      'soul.md is protected by the signed file policy "soul.md", so write cannot change it directly. ' +
        'Use the update_and_sign tool with file "soul.md", the full new content, a reason, sourceType "signed_message" ' +
        "and sourceId set to the id of the signed owner message that asked for the change.",
    );
    expect(reason("write", { path: "llm/prompts/identity.txt" })).toBe(
      'llm/prompts/identity.txt is a signed, immutable file (policy "llm/prompts/*.txt"); it cannot be changed by tools. Ask the owner to edit and re-sign it.',
    );
    expect(reason("edit", { path: "notes/signed.txt" })).toBe("notes/signed.txt is a signed, immutable file; it cannot be changed by tools. Ask the owner to edit and re-sign it.");
    expect(reason("write", { path: ".sig/config.json" })).toBe(".sig/config.json is part of the signature store (.sig/), which tools cannot write.");
    expect(reason("write", { path: "a\0b" })).toBe(
      "write: the target path could not be resolved safely (path contains a NUL byte), so it cannot be checked against the signed file policies.",
    );
    expect(reason("apply_patch", { input: "change soul.md please" })).toBe(
      "apply_patch: no file headers were found in the patch, so its target files cannot be checked against the signed file policies.",
    );
  });
});

/** A gate over the fixture's project with nothing signed: only `files` policies and the `forbidden` key paths. */
function unsignedGate(files: Record<string, { mutable: boolean }> = {}, forbidden: string[] = []) {
  return createMutationGate({
    resolver: new RealPathResolver(fixture.root, { caseInsensitive: false }),
    config: () => ({ version: 1, files }),
    writeTools: [],
    patchTools: [],
    isSigned: () => false,
    signedFiles: () => [],
    forbiddenPaths: forbidden,
  });
}

describe("mutation gate: shell commands", () => {
  const commandCall = (command: string, base = "."): GateCall => ({ ...call("exec", { command }), command: commandFiles(readExec(command), base) });
  const commandRule = (gate: { check(c: GateCall): { rule: string } | undefined }, command: string, base?: string) => gate.check(commandCall(command, base))?.rule;

  it("a file written by name is a target, in every directory the command may be in; an unreadable one is refused", () => {
    const rt = runtime();
    expect(commandRule(rt.mutationGate, "echo x > soul.md")).toBe("sig.mutation.protected_file");
    expect(commandRule(rt.mutationGate, "echo x > identity.txt", "llm/prompts")).toBe("sig.mutation.immutable_file");
    expect(commandRule(rt.mutationGate, "cd notes; cd ../llm && echo x > prompts/identity.txt")).toBe("sig.mutation.immutable_file");
    expect(commandRule(rt.mutationGate, "echo x > .sig/config.json")).toBe("sig.mutation.signature_store");
    expect(commandRule(rt.mutationGate, "echo x > notes/free.txt")).toBeUndefined();
    expect(commandRule(rt.mutationGate, `echo x > ${"d/".repeat(300)}f`)).toBe("sig.mutation.unresolved_path");
  });

  it("a word is a target only for a program that may change what it names, and only where it can be a path", () => {
    const rt = runtime();
    expect(commandRule(rt.mutationGate, "sed -i s/a/b/ notes/signed.txt")).toBe("sig.mutation.immutable_file");
    expect(commandRule(rt.mutationGate, "cat notes/signed.txt soul.md")).toBeUndefined();
    expect(commandRule(rt.mutationGate, "touch soul.md")).toBeUndefined();
    // A script's text is no path, even when no path that long can be resolved.
    expect(commandRule(rt.mutationGate, `python3 -c "${"x = 1\n".repeat(900)}"`)).toBeUndefined();
    expect(commandRule(rt.mutationGate, `python3 -c "${"y".repeat(300)}"`)).toBeUndefined();
  });

  it("a relative name is also every signed file it ends, since the shell's directory is not always known", () => {
    const rt = runtime();
    expect(commandRule(rt.mutationGate, "echo x > prompts/identity.txt")).toBe("sig.mutation.immutable_file");
    expect(commandRule(rt.mutationGate, "rm ./signed.txt")).toBe("sig.mutation.immutable_file");
    expect(commandRule(rt.mutationGate, "echo x > ../signed.txt")).toBeUndefined();
    expect(commandRule(rt.mutationGate, "echo x > other/soul.md")).toBeUndefined();
    expect(commandRule(rt.mutationGate, "echo x > ompts/identity.txt")).toBeUndefined();
  });

  it("names a path too many to read one by one: refused when anything is protected, not otherwise", () => {
    const many = `rm ${Array.from({ length: 520 }, (_, i) => `notes/f${i}`).join(" ")}`;
    expect(runtime().mutationGate.check(commandCall(many))).toEqual({
      verdict: "block",
      rule: "sig.mutation.unreadable_command",
      reason: "exec: the command has more than 512 words that may be paths, too many to check against the signed file policies.",
    });
    const bare = unsignedGate();
    expect(commandRule(bare, many)).toBeUndefined();
    expect(commandRule(bare, "echo x > soul.md")).toBeUndefined();
  });

  it("the signing key may not be named by any command, reading or not", () => {
    const key = fixture.write("keys/signing.pem", "KEY\n");
    const gate = unsignedGate({}, [key]);
    expect(commandRule(gate, "cat keys/signing.pem")).toBe("sig.mutation.signing_key");
    expect(commandRule(gate, `base64 ${key} > notes/k.txt`)).toBe("sig.mutation.signing_key");
    expect(commandRule(gate, "openssl pkey --in=keys/signing.pem")).toBe("sig.mutation.signing_key");
    expect(commandRule(gate, "cat keys/other.pem")).toBeUndefined();
  });

  it("a file under a policy pattern that is not signed yet is protected from commands too, named or written", () => {
    const rt = runtime();
    expect(commandRule(rt.mutationGate, "rm llm/prompts/new.txt")).toBe("sig.mutation.immutable_file");
    expect(commandRule(rt.mutationGate, "echo x > llm/prompts/new.txt")).toBe("sig.mutation.immutable_file");
    // With nothing signed and no key, a wildcard policy alone is enough for the command to be read.
    const globOnly = unsignedGate({ "llm/prompts/*.txt": { mutable: false } });
    expect(commandRule(globOnly, "echo x > llm/prompts/new.txt")).toBe("sig.mutation.immutable_file");
    // A plain policy path not signed yet is a name a relative path may end.
    const plain = unsignedGate({ "memory/notes.md": { mutable: false } });
    expect(commandRule(plain, "echo x > notes.md")).toBe("sig.mutation.immutable_file");
    expect(commandRule(plain, 'cd "$D" && echo x > ./notes.md')).toBe("sig.mutation.immutable_file");
  });

  it("a word no path can be read from (a link loop) is no target; a file written by name there is refused", () => {
    symlinkSync("loop-b", fixture.path("loop-a"));
    symlinkSync("loop-a", fixture.path("loop-b"));
    expect(commandRule(runtime().mutationGate, "rm -f loop-a/x")).toBeUndefined();
    expect(commandRule(runtime().mutationGate, "echo x > loop-a/x")).toBe("sig.mutation.unresolved_path");
  });

  it("on a case-insensitive file system, another case of a signed name is that file", () => {
    const rt = runtime(true);
    expect(commandRule(rt.mutationGate, "echo x > SOUL.MD")).toBe("sig.mutation.protected_file");
    expect(commandRule(rt.mutationGate, "echo x > Prompts/Identity.TXT")).toBe("sig.mutation.immutable_file");
  });

  it("says the file a command names was refused, and how to read it instead", () => {
    expect(runtime().mutationGate.check(commandCall("rm notes/signed.txt"))?.reason).toBe(
      "notes/signed.txt is a signed, immutable file; it cannot be changed by tools. Ask the owner to edit and re-sign it. " +
        "A command that names a signed file and runs a program that may change files is refused; read the file with cat, head or a file tool instead.",
    );
    expect(runtime().mutationGate.check(commandCall("echo > notes/signed.txt"))?.reason).toBe(
      "notes/signed.txt is a signed, immutable file; it cannot be changed by tools. Ask the owner to edit and re-sign it.",
    );
  });
});
