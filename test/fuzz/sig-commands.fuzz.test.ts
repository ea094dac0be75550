import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { commandFiles } from "../../src/core/command-files.js";
import { readExec } from "../../src/core/exec-trust.js";
import type { GateCall } from "../../src/core/gate.js";
import { SigRuntime } from "../../src/sig/runtime.js";
import { openSigContext } from "../../src/sig/sig-context.js";
import { signFile } from "../../src/sig/sign-file.js";
import { FUZZ_TIMEOUT_MS, fuzzParams, hostileText, scratchDir } from "./fuzz-settings.js";

/** A workspace with a signed SOUL.md and a signed prompt, and the mutation gate over it. */
function signedGate() {
  const root = scratchDir("provenant-sig-fuzz-");
  mkdirSync(join(root, "llm", "prompts"), { recursive: true });
  writeFileSync(join(root, "SOUL.md"), "soul\n");
  writeFileSync(join(root, "llm", "prompts", "system.md"), "system\n");
  writeFileSync(join(root, ".keep"), "");
  const ctx = openSigContext(root, { clock: Date.now });
  signFile(ctx, "SOUL.md", { identity: "owner:fuzz" });
  signFile(ctx, "llm/prompts/system.md", { identity: "owner:fuzz" });
  const gate = new SigRuntime({ projectRoot: root, clock: Date.now }).mutationGate;
  return (command: string) => {
    const call: GateCall = { sessionId: "s", turnId: "t", tool: "exec", params: { command }, taint: "trusted", senderIsOwner: true, command: commandFiles(readExec(command), ".") };
    return gate.check(call);
  };
}

/** Commands a model writes, built from pieces: what runs before the write under test. */
const word = fc.constantFrom("ls", "cat notes.md", "grep -rn TODO src", "cd llm", "cd prompts", "cd /tmp", 'cd "$HOME"', "echo hi", "true", "git status", "x=1", "sleep 0");
const prefix = fc.array(word, { maxLength: 4 }).chain((words) => fc.constantFrom(...["; ", " && ", " || ", " | "]).map((sep) => words.join(sep)));
const target = fc.constantFrom("SOUL.md", "./SOUL.md", "llm/prompts/system.md", "prompts/system.md", "system.md", "./llm//prompts/system.md");
const write = fc.constantFrom("echo pwned > %", "echo pwned >> %", "printf x | tee %", "cp /tmp/x %", "dd if=/dev/zero of=% count=1", "sed -i s/a/b/ %", "rm -f %", "mv % /tmp/", "truncate -s0 %");
const wrap = fc.constantFrom("%", "bash -c '%'", "sh -c \"%\"", "(%)", "{ %; }", "sudo %", "env A=1 %", "if true; then %; fi", "for i in 1; do %; done");

describe("fuzzing the mutation gate's reading of shell commands", () => {
  it(
    "property: any text as a command is decided without throwing, and decided a block or nothing",
    () => {
      const check = signedGate();
      fc.assert(
        fc.property(fc.oneof(hostileText, fc.string({ maxLength: 200 })), (command) => {
          const verdict = check(command);
          expect(verdict === undefined || verdict.verdict === "block").toBe(true);
        }),
        fuzzParams("sig-commands:any", 4),
      );
    },
    FUZZ_TIMEOUT_MS,
  );

  it(
    "property: a write to a signed file by name, after any commands and inside any wrapper, is refused",
    () => {
      const check = signedGate();
      fc.assert(
        fc.property(prefix, write, target, wrap, (before, how, file, around) => {
          const command = `${before === "" ? "" : `${before}; `}${around.replace("%", how.replace("%", file))}`;
          expect(check(command)?.rule, command).toMatch(/^sig\.mutation\.(immutable_file|unresolved_path)$/);
        }),
        fuzzParams("sig-commands:writes", 4),
      );
    },
    FUZZ_TIMEOUT_MS,
  );
});
