import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseTrace, TraceError } from "../../src/adapters/replay/trace-events.js";
import { tempWorkspace } from "../guard/helpers.js";
import { runCli } from "./run-cli.js";

describe("friendly CLI errors", () => {
  it("provenant --version prints the package version", () => {
    const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string };
    const r = runCli(["--version"]);
    expect(r.status).toBe(0);
    expect(r.stdout.trim()).toBe(pkg.version);
  });

  it("a config file that does not exist is named with the reason in words", () => {
    const missing = join(tempWorkspace(), "nope.json");
    const r = runCli(["config", "check", missing]);
    expect(r.status).toBe(2);
    expect(r.stderr).toBe(`provenant config check: cannot read "${missing}": no such file or directory\n`);
  });

  it("a hostile YAML configuration (nesting that exhausts a parser) ends config check with a message, not a crash", () => {
    const file = join(tempWorkspace(), "deep.yaml");
    writeFileSync(file, "- ".repeat(50_000) + "a");
    const r = runCli(["config", "check", file]);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain("nested deeper than 64 levels");
  });

  it("a trace that is a directory is named with the reason in words", () => {
    const dir = join(tempWorkspace(), "trace.jsonl");
    mkdirSync(dir);
    const r = runCli(["replay", dir]);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain(`cannot read "${dir}": it is a directory`);
  });

  it("a configuration nested 5,000 levels deep is refused with the limit named", () => {
    const file = join(tempWorkspace(), "deep.json");
    writeFileSync(file, `{"toolOverrides":${'{"x":'.repeat(5_000)}1${"}".repeat(5_000)}}`);
    const r = runCli(["config", "check", file]);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain("nesting deeper than 32 levels");
    expect(r.stderr).not.toContain("call stack");
  });

  it("an error message with escape sequences in it is printed escaped", () => {
    const file = join(tempWorkspace(), "evil\x1b[2K\u202e.json");
    const r = runCli(["config", "check", file]);
    expect(r.stderr).not.toMatch(/[\x1b\u202e]/);
    expect(r.stderr).toContain("\\u001b[2K\\u202e");
  });
});

describe("trace limits", () => {
  it("a trace line nested beyond the limit stops the replay with the line number and the limit", () => {
    const deep = `{"event":"tool_result","id":"c1","tool":"read","output":${"[".repeat(5_000)}${"]".repeat(5_000)}}`;
    expect(() => parseTrace(`{"event":"turn","session":"s","text":"x"}\n${deep}\n`)).toThrow(TraceError);
    expect(() => parseTrace(`{"event":"turn","session":"s","text":"x"}\n${deep}\n`)).toThrow("trace line 2: the event is too large: nesting deeper than 66 levels");
  });

  it("a config event with a __proto__ key is refused with the key named", () => {
    expect(() => parseTrace('{"event":"config","config":{"__proto__":{"failMode":"open"}}}')).toThrow(/trace line 1: .*__proto__: "__proto__" is a reserved name/s);
  });
});
