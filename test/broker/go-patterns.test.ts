import { describe, expect, it } from "vitest";
import { checkArgs, compileGoPattern } from "../../src/broker/arg-rules.js";
import { ConfigError, parseBrokerConfig } from "../../src/broker/broker-config.js";

/**
 * Rules mean what they mean in Go. Each row is a pattern in Go's syntax, a text, and whether Go's
 * regexp.MatchString finds a match (the answers are Go's documented semantics: RE2 syntax, `.` stops
 * only at `\n`, `$` is end of text without (?m), `\s` `\d` `\w` are ASCII, simple case folding).
 */
const GO_TABLE: readonly (readonly [pattern: string, text: string, matches: boolean])[] = [
  ["\\A--force\\z", "--force", true],
  ["\\A--force\\z", "--force\n", false],
  ["\\A--force\\z", "x--force", false],
  ["^--force$", "--force\n", false],
  ["(?m)^rm$", "ls\nrm", true],
  ["a[[:space:]]b", "a b", true],
  ["a[[:space:]]b", "a\tb", true],
  ["a[[:space:]]b", "a\vb", true],
  ["a[[:^space:]]b", "a b", false],
  ["[[:alpha:]]+[[:digit:]]", "abc1", true],
  ["^\\pL+$", "héllo", true],
  ["^\\pL+$", "h3llo", false],
  ["^\\p{Greek}+$", "αβγ", true],
  ["\\PL", "abc", false],
  ["\\Qa.b*c\\E", "a.b*c", true],
  ["\\Qa.b*c\\E", "axbbc", false],
  ["a.b", "a\rb", true],
  ["a.b", "a\u2028b", true],
  ["a.b", "a\u2029b", true],
  ["a.b", "a\nb", false],
  ["(?s)a.b", "a\nb", true],
  ["(?i)delete", "DeLeTe", true],
  ["(?i)k", "\u212a", true],
  ["(?i)straße", "STRASSE", false],
  ["repo(?i:DELETE)", "repodelete", true],
  ["(?i)REPO(?-i:delete)", "repoDELETE", false],
  ["\\s", "\u00a0", false],
  ["\\s", "\v", false],
  ["\\d", "\u0663", false],
  ["\\w", "é", false],
  ["\\bgo\\b", "é go", true],
  ["\\x{41}", "A", true],
  ["(?P<verb>delete)", "delete", true],
  ["(?U)a+", "aaa", true],
  ["^.$", "😀", true],
  ["^.$", "\ud800", true],
];

describe("argument rules: Go's syntax and meaning (RE2)", () => {
  for (const [pattern, text, matches] of GO_TABLE) {
    it(`${JSON.stringify(pattern)} ${matches ? "matches" : "does not match"} ${JSON.stringify(text)}`, () => {
      expect(compileGoPattern(pattern).test(text)).toBe(matches);
    });
  }

  it("a blocked rule written in Go syntax refuses what Go would refuse (it failed open before)", () => {
    const rule = (pattern: string) => [{ match: "arg" as const, message: "no", pattern: compileGoPattern(pattern) }];
    expect(checkArgs(["--force"], "blocklist", rule("\\A--force\\z"), [])).toEqual({ allowed: false, message: "no" });
    expect(checkArgs(["rm -rf"], "blocklist", rule("rm[[:space:]]"), [])).toEqual({ allowed: false, message: "no" });
    expect(checkArgs(["ünïcode"], "blocklist", rule("^\\pL+$"), [])).toEqual({ allowed: false, message: "no" });
    expect(checkArgs(["a.*b"], "blocklist", rule("\\Qa.*b\\E"), [])).toEqual({ allowed: false, message: "no" });
    expect(checkArgs(["x\ry"], "blocklist", rule("^x.y$"), [])).toEqual({ allowed: false, message: "no" });
  });

  it("a pattern RE2 refuses is a config error naming the rule", () => {
    const config = (pattern: string, key = "blocked_args"): string =>
      JSON.stringify({ tools: { gh: { binary: "/bin/echo", ...(key === "allowed_args" ? { mode: "allowlist" } : {}), [key]: [{ pattern: "ok" }, { pattern, message: "m" }] } } });
    for (const bad of ["(?=x)", "(?<!a)b", "(a)\\1", "a++", "a{1001}", "(unclosed", "\\C"]) {
      expect(() => parseBrokerConfig(config(bad))).toThrow(ConfigError);
      expect(() => parseBrokerConfig(config(bad))).toThrow(/^tools\.gh\.blocked_args\[1\]: pattern .* is not a valid Go \(RE2\) regular expression/);
    }
    expect(() => parseBrokerConfig(config("(?=x)", "allowed_args"))).toThrow(/^tools\.gh\.allowed_args\[1\]/);
  });
});
