import { describe, expect, it } from "vitest";
import { type ArgRule, checkArgs, compileGoPattern } from "../../src/broker/arg-rules.js";

// checkArgs as the daemon calls it, rule by rule: each match mode, blocklist and allowlist, and the
// edges where a wrong rule would let a command through (no arguments, one bad argument among good
// ones, an argv of the wrong length).
const arg = (pattern: string, message = pattern): ArgRule => ({ match: "arg", message, pattern: compileGoPattern(pattern) });
const command = (pattern: string, message = pattern): ArgRule => ({ match: "command", message, pattern: compileGoPattern(pattern) });
const argv = (patterns: string[], message = patterns.join(" ")): ArgRule => ({
  match: "argv",
  message,
  argv: patterns.map((p) => compileGoPattern(p, true)),
});
const ALLOWED = { allowed: true } as const;
const refused = (message: string) => ({ allowed: false, message });

describe("blocked rules", () => {
  it("an `arg` rule refuses when any one argument matches, and names the rule's message", () => {
    expect(checkArgs(["status", "--force", "x"], "blocklist", [arg("^--force$", "no force")], [])).toEqual(refused("no force"));
    expect(checkArgs(["status", "--forced"], "blocklist", [arg("^--force$")], [])).toEqual(ALLOWED);
  });

  it("an `arg` rule is searched in each argument alone, not across two", () => {
    expect(checkArgs(["rm", "-rf"], "blocklist", [arg("rm -rf")], [])).toEqual(ALLOWED);
  });

  it("a `command` rule is searched in the arguments joined by single spaces", () => {
    expect(checkArgs(["rm", "-rf"], "blocklist", [command("rm -rf", "no rm")], [])).toEqual(refused("no rm"));
    expect(checkArgs(["rm", "-r", "-f"], "blocklist", [command("rm -rf")], [])).toEqual(ALLOWED);
  });

  it("the first blocked rule that hits decides, and blocked rules are checked before allowed ones", () => {
    const blocked = [arg("^a$", "first"), arg("^b$", "second")];
    expect(checkArgs(["b", "a"], "blocklist", blocked, [])).toEqual(refused("first"));
    expect(checkArgs(["b"], "blocklist", blocked, [])).toEqual(refused("second"));
    expect(checkArgs(["a"], "allowlist", blocked, [arg(".*")])).toEqual(refused("first"));
  });

  it("no argument hits no `arg` rule", () => {
    expect(checkArgs([], "blocklist", [arg(".*")], [])).toEqual(ALLOWED);
  });
});

describe("allowed rules (allowlist mode)", () => {
  it("an `arg` rule allows only when every argument matches", () => {
    const allowed = [arg("^(status|log)$", "read-only")];
    expect(checkArgs(["status", "log"], "allowlist", [], allowed)).toEqual(ALLOWED);
    expect(checkArgs(["status", "push"], "allowlist", [], allowed)).toEqual(refused("read-only"));
  });

  it("an `arg` rule does not allow an empty argument list (nothing shows the command is the one allowed)", () => {
    expect(checkArgs([], "allowlist", [], [arg(".*", "args needed")])).toEqual(refused("args needed"));
  });

  it("an `argv` rule needs exactly as many arguments as patterns, each matching the one in its place", () => {
    const allowed = [argv(["status", "--short"], "status only")];
    expect(checkArgs(["status", "--short"], "allowlist", [], allowed)).toEqual(ALLOWED);
    expect(checkArgs(["--short", "status"], "allowlist", [], allowed)).toEqual(refused("status only"));
    expect(checkArgs(["status"], "allowlist", [], allowed)).toEqual(refused("status only"));
    expect(checkArgs(["status", "--short", "--force"], "allowlist", [], allowed)).toEqual(refused("status only"));
    expect(checkArgs(["status", "--shorter"], "allowlist", [], allowed)).toEqual(refused("status only"));
  });

  it("an `argv` rule with no patterns allows only the empty argument list", () => {
    expect(checkArgs([], "allowlist", [], [argv([], "bare")])).toEqual(ALLOWED);
    expect(checkArgs(["x"], "allowlist", [], [argv([], "bare")])).toEqual(refused("bare"));
  });

  it("a `command` rule allows when the joined command matches", () => {
    expect(checkArgs(["pr", "list"], "allowlist", [], [command("^pr list$", "pr list")])).toEqual(ALLOWED);
    expect(checkArgs(["pr", "merge"], "allowlist", [], [command("^pr list$", "pr list")])).toEqual(refused("pr list"));
  });

  it("any one allowed rule suffices; when none matches the first rule's message is given", () => {
    const allowed = [argv(["status"], "first"), argv(["log"], "second")];
    expect(checkArgs(["log"], "allowlist", [], allowed)).toEqual(ALLOWED);
    expect(checkArgs(["push"], "allowlist", [], allowed)).toEqual(refused("first"));
  });

  it("allowlist mode with no allowed rule refuses everything with a generic message", () => {
    expect(checkArgs(["status"], "allowlist", [], [])).toEqual(refused("command not allowed"));
  });

  it("blocklist mode ignores allowed rules", () => {
    expect(checkArgs(["push"], "blocklist", [], [argv(["status"], "status only")])).toEqual(ALLOWED);
  });
});

describe("what a rule sees", () => {
  it("a lone surrogate is matched as the U+FFFD the tool receives", () => {
    expect(checkArgs(["a\ud800b"], "blocklist", [arg("a\\x{FFFD}b", "replacement")], [])).toEqual(refused("replacement"));
  });

  it("an anchored pattern cannot be escaped by unbalanced parentheses", () => {
    expect(() => compileGoPattern("a)|(.*", true)).toThrow(/not a valid Go \(RE2\) regular expression/);
  });

  it("an anchored pattern matches the whole argument only", () => {
    const p = compileGoPattern("stat", true);
    expect([p.test("stat"), p.test("status"), p.test("xstat")]).toEqual([true, false, false]);
    expect(compileGoPattern("stat").test("status")).toBe(true);
    expect(p.source).toBe("stat");
  });
});
