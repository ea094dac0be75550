import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { listCommand, showCommand } from "../../src/cli/blocked-writes.js";
import { readConfigFile } from "../../src/cli/config.js";
import { describeCliError } from "../../src/cli/exit.js";
import { replayFile } from "../../src/cli/replay.js";
import { SILENT_LOGGER } from "../../src/core/logger.js";
import { displayBlock, displayJson, displayText, isDisplaySafe } from "../../src/core/safe-display.js";
import { resolveGuardConfig } from "../../src/guard-config.js";
import { deepJsonText, fuzzParams, FUZZ_TIMEOUT_MS, hostileName, hostileText, scratchDir, shallowValue } from "./fuzz-settings.js";

/** The errors a command may end with: each names what was wrong. A TypeError or RangeError is a bug. */
const FRIENDLY = new Set(["InputFileError", "ConfigError", "TraceError", "SyntaxError", "YAMLParseError", "YAMLWarning", "BlockedWriteError", "InputLimitError"]);

const fileBody = fc.oneof(
  shallowValue.map((v) => JSON.stringify(v) ?? ""),
  deepJsonText,
  deepJsonText.map((deep) => `{"toolOverrides":${deep}}`),
  fc.string({ unit: "binary", maxLength: 200 }),
  fc.array(shallowValue.map((v) => JSON.stringify(v) ?? ""), { maxLength: 4 }).map((l) => l.join("\n")),
  fc.constantFrom('{"plugins":{"entries":{"provenant":{"config":{"agents":{"constructor":{}}}}}}}', "a: [[[[[[", "{}"),
);

/** A staged-write file: near-valid ones reach the display, hostile text in every field. */
const stagedFile = fc
  .record({
    version: fc.constantFrom(1, 2),
    id: fc.constant("0123456789abcdef0123456789abcdef"),
    sessionId: hostileText,
    tool: fc.constantFrom("write", "edit"),
    operation: fc.constantFrom("write", "edit"),
    targetPath: hostileText,
    resolvedPath: hostileText,
    content: hostileText,
    edits: fc.constant(null),
    baseSha256: fc.constant(null),
    taint: fc.constantFrom("untrusted", "nope"),
    reason: hostileText,
    createdAt: fc.constant("2026-02-10T20:15:00.000Z"),
  })
  .map((d) => JSON.stringify(d));

function friendly(error: unknown): void {
  expect(error).toBeInstanceOf(Error);
  expect(FRIENDLY.has((error as Error).name), `${(error as Error).name}: ${(error as Error).message}`).toBe(true);
  expect(describeCliError(error).length).toBeGreaterThan(0);
}

describe("fuzzing the CLI's commands on arbitrary files", () => {
  it(
    "config check and replay: any file gives a result or a friendly error",
    () => {
      const dir = scratchDir("provenant-fuzz-cli-");
      let n = 0;
      try {
        fc.assert(
          fc.property(fileBody, fc.constantFrom(".json", ".yaml", ".jsonl"), (body, ext) => {
            const file = join(dir, `f${n++}${ext}`);
            writeFileSync(file, body);
            try {
              resolveGuardConfig(readConfigFile(file));
            } catch (error) {
              friendly(error);
            }
            const ws = join(dir, `ws${n}`);
            mkdirSync(ws);
            try {
              for (const line of replayFile(file, { workspace: ws, now: "2026-01-01T00:00:00Z", logger: SILENT_LOGGER })) expect(isDisplaySafe(line.replaceAll("\n", ""))).toBe(true);
            } catch (error) {
              friendly(error);
            }
            rmSync(ws, { recursive: true, force: true });
            rmSync(file, { force: true });
          }),
          fuzzParams("cli config check and replay", 0.5),
        );
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
    FUZZ_TIMEOUT_MS,
  );

  it(
    "blocked-writes list and show: any staged file is shown with nothing raw, or reported unreadable",
    () => {
      fc.assert(
        fc.property(stagedFile, (body) => {
          const ws = scratchDir("provenant-fuzz-bw-");
          try {
            mkdirSync(join(ws, ".provenance", "blocked-writes"), { recursive: true });
            writeFileSync(join(ws, ".provenance", "blocked-writes", "0123456789abcdef0123456789abcdef.json"), body);
            const out: string[] = [];
            const io = { cwd: ws, out: (l: string) => out.push(l), err: (l: string) => out.push(l) };
            listCommand(io, {});
            showCommand(io, "0123456789abcdef0123456789abcdef", {});
            listCommand(io, { json: true });
            for (const line of out) for (const part of line.split("\n")) expect(isDisplaySafe(part.replaceAll("\t", ""))).toBe(true);
          } finally {
            rmSync(ws, { recursive: true, force: true });
          }
        }),
        fuzzParams("cli blocked-writes", 1),
      );
    },
    FUZZ_TIMEOUT_MS,
  );
});

describe("fuzzing safe display", () => {
  it(
    "displayed text holds no control, bidi or lone-surrogate character, and displayed JSON reads back as the same value",
    () => {
      fc.assert(
        fc.property(fc.oneof(hostileText, fc.string({ unit: "binary" })), shallowValue, hostileName, (text, value, name) => {
          expect(isDisplaySafe(displayText(text))).toBe(true);
          for (const line of displayBlock(text).split("\n")) expect(isDisplaySafe(line.replaceAll("\t", ""))).toBe(true);
          const json = displayJson({ value, name });
          expect(isDisplaySafe(json)).toBe(true);
          expect(JSON.stringify(JSON.parse(json))).toBe(JSON.stringify({ value, name }));
          const indented = displayJson({ name, text }, 2);
          for (const line of indented.split("\n")) expect(isDisplaySafe(line)).toBe(true);
          expect(JSON.parse(indented)).toEqual({ name, text });
        }),
        fuzzParams("safe display", 2),
      );
    },
    FUZZ_TIMEOUT_MS,
  );
});
