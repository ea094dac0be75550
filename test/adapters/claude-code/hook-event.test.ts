import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { HookEventError, parseHookEvent } from "../../../src/adapters/claude-code/hook-event.js";

const base = { session_id: "0b1c2d3e-aaaa-bbbb-cccc-123456789abc", cwd: "/home/u/project" };

describe("parseHookEvent", () => {
  it("reads the events Claude Code sends, ignoring fields it adds", () => {
    const e = parseHookEvent(JSON.stringify({ ...base, hook_event_name: "PreToolUse", tool_name: "Bash", tool_input: { command: "ls" }, tool_use_id: "toolu_1", permission_mode: "default", effort: { level: "medium" } }));
    expect(e).toMatchObject({ hook_event_name: "PreToolUse", tool_name: "Bash", tool_input: { command: "ls" } });
    const turn = { prompt_id: "5d8eedd1-f6ff-43ee-bb1b-7e5f499016c2", transcript_path: "/home/u/.claude/projects/-home-u-project/s.jsonl" };
    expect(parseHookEvent(JSON.stringify({ ...base, hook_event_name: "PreToolUse", tool_name: "Bash", tool_input: {}, ...turn }))).toMatchObject(turn);
  });

  it("reads a result's duration_ms; one that is not a duration is as if absent", () => {
    const post = (duration: unknown) => parseHookEvent(JSON.stringify({ ...base, hook_event_name: "PostToolUse", tool_name: "Bash", tool_input: { command: "ls" }, tool_response: "", duration_ms: duration }));
    expect(post(1234)).toMatchObject({ duration_ms: 1234 });
    for (const bad of [-1, "12", null, 1e400, { ms: 1 }]) expect((post(bad) as { duration_ms?: unknown }).duration_ms).toBeUndefined();
    const failed = parseHookEvent(JSON.stringify({ ...base, hook_event_name: "PostToolUseFailure", tool_name: "Bash", tool_input: { command: "x" }, error: "exit 1", duration_ms: 7 }));
    expect(failed).toMatchObject({ duration_ms: 7 });
  });

  it("names the field that is wrong", () => {
    const bad: [unknown, RegExp][] = [
      ["{", /not JSON/],
      ["[]", /not a JSON object/],
      [{ ...base, hook_event_name: "Nope" }, /hook_event_name "Nope" is not one of/],
      [{ ...base, hook_event_name: "PreToolUse", tool_name: "Bash" }, /PreToolUse event: tool_input/],
      [{ ...base, hook_event_name: "PreToolUse", tool_name: "Bash", tool_input: [] }, /tool_input: an object/],
      [{ ...base, session_id: "../../etc", hook_event_name: "Stop" }, /session_id/],
      [{ ...base, cwd: "relative", hook_event_name: "Stop" }, /cwd/],
      [{ ...base, hook_event_name: "UserPromptSubmit" }, /prompt/],
      [{ ...base, hook_event_name: "PreToolUse", tool_name: "Bash", tool_input: {}, transcript_path: "t.jsonl" }, /transcript_path: an absolute path/],
      [{ ...base, hook_event_name: "PreToolUse", tool_name: "Bash", tool_input: {}, prompt_id: "" }, /prompt_id/],
    ];
    for (const [input, message] of bad) {
      expect(() => parseHookEvent(typeof input === "string" ? input : JSON.stringify(input))).toThrow(message);
    }
  });

  it("keeps a __proto__ key of tool_input an own property, never a prototype", () => {
    const e = parseHookEvent(`{"session_id":"s","cwd":"/p","hook_event_name":"PreToolUse","tool_name":"Write","tool_input":{"__proto__":{"file_path":"/p/CLAUDE.md"}}}`);
    expect(e.hook_event_name === "PreToolUse" && Object.hasOwn(e.tool_input, "__proto__")).toBe(true);
    expect(e.hook_event_name === "PreToolUse" && (e.tool_input as { file_path?: unknown }).file_path).toBe(undefined);
  });

  it("throws only HookEventError on hostile input (fuzz)", () => {
    const field = fc.oneof(fc.string(), fc.integer(), fc.constant(null), fc.object(), fc.array(fc.anything()));
    const eventish = fc.record(
      {
        session_id: fc.oneof(fc.string(), fc.uuid(), field),
        cwd: fc.oneof(fc.constant("/p"), fc.string(), field),
        hook_event_name: fc.oneof(fc.constantFrom("PreToolUse", "PostToolUse", "UserPromptSubmit", "Stop", "SessionStart", "__proto__", "constructor"), field),
        tool_name: fc.oneof(fc.constantFrom("Bash", "Edit", "toString"), field),
        tool_input: fc.oneof(fc.object(), field),
        tool_response: fc.anything(),
        prompt: field,
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.jsonValue().map((v) => JSON.stringify(v)), eventish.map((v) => JSON.stringify(v))), (text) => {
        try {
          parseHookEvent(text);
        } catch (error) {
          expect(error).toBeInstanceOf(HookEventError);
        }
      }),
      { numRuns: 2000 },
    );
  });
});
