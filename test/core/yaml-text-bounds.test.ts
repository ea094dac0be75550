import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseBrokerConfig } from "../../src/broker/broker-config.js";
import { readConfigFile } from "../../src/cli/config.js";
import { MAX_YAML_NESTING, yamlNestingExceeds } from "../../src/core/yaml-text-bounds.js";

// Nestings that exhaust a YAML parser; running out of heap in V8's regexp compiler ends the
// process (it ended a test worker once), so they must be refused before any parser sees them.
const HOSTILE = ["[".repeat(100_000), "- ".repeat(50_000) + "a", "{a: ".repeat(20_000) + "1" + "}".repeat(20_000), `a:\n${" ".repeat(300)}b: 1`, `${'{"v":['.repeat(6_000)}"leaf"${"]}".repeat(6_000)}`];

describe("YAML text bounds", () => {
  it("refuses nesting past the limit, in brackets or in indentation", () => {
    for (const text of HOSTILE) expect(yamlNestingExceeds(text), text.slice(0, 20)).toBe(true);
    expect(yamlNestingExceeds("[".repeat(MAX_YAML_NESTING))).toBe(false);
    expect(yamlNestingExceeds("[".repeat(MAX_YAML_NESTING + 1))).toBe(true);
    expect(yamlNestingExceeds(`a:\n${" ".repeat(2 * MAX_YAML_NESTING)}b: 1`)).toBe(false);
    expect(yamlNestingExceeds(`a:\n${" ".repeat(2 * MAX_YAML_NESTING + 1)}b: 1`)).toBe(true);
  });

  it("passes ordinary configurations, closed brackets never adding up", () => {
    expect(yamlNestingExceeds("fileTrust:\n  \"**/[abc]/**\": external\ntoolOverrides:\n  exec: { trusted: allow }\n")).toBe(false);
    expect(yamlNestingExceeds("[]".repeat(10_000))).toBe(false);
    expect(yamlNestingExceeds("]".repeat(1_000) + "[".repeat(MAX_YAML_NESTING))).toBe(false);
  });

  it("property: never throws, and a text within the limit stays within it when lines are added at the top level", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 300 }), (text) => {
        const verdict = yamlNestingExceeds(text);
        expect(typeof verdict).toBe("boolean");
        if (!verdict) expect(yamlNestingExceeds(`${text}\nkey: value`)).toBe(false);
      }),
    );
  });

  it("the CLI's configuration reader refuses a hostile YAML file with a ConfigError naming the file", () => {
    const dir = mkdtempSync(join(tmpdir(), "provenant-yaml-bounds-"));
    try {
      for (const [i, text] of HOSTILE.entries()) {
        const file = join(dir, `c${i}.yaml`);
        writeFileSync(file, text);
        expect(() => readConfigFile(file)).toThrow(expect.objectContaining({ name: "ConfigError", message: expect.stringContaining(`c${i}.yaml`) }));
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("the broker's configuration parser refuses one with a ConfigError", () => {
    for (const text of HOSTILE) expect(() => parseBrokerConfig(text)).toThrow(/nested deeper than 64 levels/);
  });
});
