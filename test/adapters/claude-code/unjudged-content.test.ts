import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { HOOK_EVENT_NAMES } from "../../../src/adapters/claude-code/hook-event.js";
import { bringsContent, countUnjudged, taintUnjudged, unjudgedReason } from "../../../src/adapters/claude-code/unjudged-content.js";

const made: string[] = [];
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});
const project = (): string => {
  const dir = mkdtempSync(join(tmpdir(), "provenant-unjudged-"));
  made.push(dir);
  return dir;
};
const ANSWER = { exitCode: 1 as const, stdout: "", stderr: "provenant: boom\n" };

describe("content provenant could not judge", () => {
  it("is what the events that bring content into the session carry, and only those", () => {
    expect(HOOK_EVENT_NAMES.filter((name) => bringsContent(name))).toEqual(["SessionStart", "UserPromptSubmit", "UserPromptExpansion", "PostToolUse", "PostToolUseFailure", "InstructionsLoaded", "DirectoryAdded"]);
    expect(bringsContent(null)).toBe(false);
  });

  it("names the tool's result, or what the event brought, and the failure", () => {
    expect(unjudgedReason("PostToolUse", "Read", new TypeError("x is not a function"))).toBe("the Read result could not be judged (TypeError: x is not a function): counted as untrusted");
    expect(unjudgedReason("SessionStart", null, new Error("EIO"))).toBe("what SessionStart brought could not be judged (Error: EIO): counted as untrusted");
  });

  it("raises the session for a content event and says so after the failure; another event's answer is left as it was, nothing raised", () => {
    const raised: string[] = [];
    const raise = (session: string, reason: string) => {
      raised.push(`${session}: ${reason}`);
      return null;
    };
    expect(countUnjudged(ANSWER, { hook_event_name: "Stop", session_id: "s1" }, new Error("boom"), raise)).toBe(ANSWER);
    expect(raised).toEqual([]);
    const counted = countUnjudged(ANSWER, { hook_event_name: "PostToolUse", session_id: "s1", tool_name: "WebFetch" }, new Error("boom"), raise);
    expect(counted).toEqual({ exitCode: 1, stdout: "", stderr: "provenant: boom\nprovenant: the WebFetch result could not be judged (Error: boom): counted as untrusted\n" });
    expect(raised).toEqual(["s1: the WebFetch result could not be judged (Error: boom): counted as untrusted"]);
    const failed = countUnjudged(ANSWER, { hook_event_name: "UserPromptSubmit", session_id: "s1" }, new Error("boom"), () => "Error: EROFS");
    expect(failed.stderr).toBe("provenant: boom\nprovenant: what UserPromptSubmit brought could not be judged (Error: boom): counted as untrusted, but the session's state could not be raised either (Error: EROFS)\n");
  });

  it("raises the session's watermark on record, and reports a state it cannot write", () => {
    const dir = project();
    expect(taintUnjudged(dir, "s1", "the Read result could not be judged")).toBeNull();
    const file = JSON.stringify(JSON.parse(readFileSync(join(dir, ".provenance", "watermarks.json"), "utf8")));
    expect(file).toContain('"level":"untrusted"');
    expect(file).toContain('"reason":"the Read result could not be judged"');
    expect(file).toContain('"escalatedBy":"unjudged-content"');
    // `.provenance` is a file: nothing can be written there.
    const blocked = project();
    writeFileSync(join(blocked, ".provenance"), "");
    expect(taintUnjudged(blocked, "s1", "x")).not.toBeNull();
    // A session id the store refuses.
    expect(taintUnjudged(dir, "", "x")).not.toBeNull();
  });
});
