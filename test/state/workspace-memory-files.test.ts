import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BlockedWriteStore } from "../../src/state/blocked-write-store.js";
import { WorkspaceMemoryFiles, type MemoryWriteRequest } from "../../src/state/workspace-memory-files.js";

let ws: string;
beforeEach(() => {
  ws = realpathSync(mkdtempSync(join(tmpdir(), "provenant-memfiles-")));
});
afterEach(() => rmSync(ws, { recursive: true, force: true }));

function request(params: Record<string, unknown>, target = "SOUL.md"): MemoryWriteRequest {
  return {
    sessionId: "s1",
    tool: "write",
    params,
    targetPath: target,
    resolvedPath: join(ws, target),
    taint: "untrusted",
    reason: "tainted write",
    now: new Date("2026-11-23T10:00:00Z"),
  };
}

function stagedOf(files: WorkspaceMemoryFiles, params: Record<string, unknown>, target?: string) {
  const { id } = files.stage(request(params, target));
  return new BlockedWriteStore(ws).get(id);
}

describe("WorkspaceMemoryFiles.protectedTarget", () => {
  it("rule: a default memory file is protected, an ordinary file is not", () => {
    const files = new WorkspaceMemoryFiles(ws);
    expect(files.protectedTarget("SOUL.md")).toEqual({ relativePath: "SOUL.md", resolvedPath: join(ws, "SOUL.md") });
    expect(files.protectedTarget("src/app.ts")).toBeNull();
  });

  it("rule: the owner's extra patterns are protected too, and only with them", () => {
    expect(new WorkspaceMemoryFiles(ws).protectedTarget("notes/plan.md")).toBeNull();
    expect(new WorkspaceMemoryFiles(ws, ["notes/*.md"]).protectedTarget("notes/plan.md")).toEqual({
      relativePath: "notes/plan.md",
      resolvedPath: join(ws, "notes", "plan.md"),
    });
  });

  it("rule: a path that cannot be resolved (a symlink loop) counts as protected, as the raw path", () => {
    symlinkSync("loop", join(ws, "loop"));
    const files = new WorkspaceMemoryFiles(ws);
    expect(files.protectedTarget("loop/x.md")).toEqual({ relativePath: "loop/x.md", resolvedPath: join(ws, "loop", "x.md") });
  });

  it("a workspace that cannot be read as a directory counts as protected too", () => {
    const file = join(ws, "plain");
    writeFileSync(file, "x");
    expect(new WorkspaceMemoryFiles(file).protectedTarget("notes.txt")).toEqual({ relativePath: "notes.txt", resolvedPath: join(file, "notes.txt") });
  });

  it("a configuration error is not taken for an unresolvable path: it propagates", () => {
    expect(() => new WorkspaceMemoryFiles(ws, ["../outside.md"]).protectedTarget("SOUL.md")).toThrow(/must not contain '\.\.'/);
  });
});

describe("WorkspaceMemoryFiles.stage", () => {
  it("stages a write's content from each key a write tool uses, and says where", () => {
    const files = new WorkspaceMemoryFiles(ws);
    for (const key of ["content", "text", "contents"]) {
      const { id, location } = files.stage(request({ [key]: `by ${key}` }));
      expect(location).toBe(".provenance/blocked-writes/");
      const staged = new BlockedWriteStore(ws).get(id);
      expect(staged).toMatchObject({ operation: "write", content: `by ${key}`, edits: null, sessionId: "s1", tool: "write", taint: "untrusted" });
    }
  });

  it("the first string content key wins; a non-string one is skipped", () => {
    const files = new WorkspaceMemoryFiles(ws);
    expect(stagedOf(files, { content: 7, text: "the text", contents: "later" }).content).toBe("the text");
  });

  it("refuses a write with no string content", () => {
    const files = new WorkspaceMemoryFiles(ws);
    expect(() => files.stage(request({ content: 42 }))).toThrow("the write has no string content to stage");
    expect(new BlockedWriteStore(ws).list()).toEqual([]);
  });

  it("stages an edits array in each spelling, keeping replaceAll only where asked", () => {
    writeFileSync(join(ws, "SOUL.md"), "a b a c d\n");
    const files = new WorkspaceMemoryFiles(ws);
    const staged = stagedOf(files, {
      edits: [
        { oldText: "b", newText: "B" },
        { old_string: "a", new_string: "A", replace_all: true },
        { oldText: "c", newText: "C", replaceAll: true },
        { oldText: "d", newText: "D", replaceAll: "yes", replace_all: 1 },
      ],
    });
    expect(staged.operation).toBe("edit");
    expect(staged.edits).toEqual([
      { oldText: "b", newText: "B" },
      { oldText: "a", newText: "A", replaceAll: true },
      { oldText: "c", newText: "C", replaceAll: true },
      { oldText: "d", newText: "D" },
    ]);
    expect(staged.content).toBe("A B A C D\n");
  });

  it("an edit entry with missing texts stages empty strings (which then fail to apply, not a wrong edit)", () => {
    writeFileSync(join(ws, "SOUL.md"), "x\n");
    const files = new WorkspaceMemoryFiles(ws);
    expect(() => files.stage(request({ edits: [null] }))).toThrow();
    const staged = stagedOf(files, { edits: [{ oldText: "x", newText: null }] });
    expect(staged.edits).toEqual([{ oldText: "x", newText: "" }]);
    expect(staged.content).toBe("\n");
  });

  it("stages a single edit in both spellings; replace-all in either spelling", () => {
    const files = new WorkspaceMemoryFiles(ws);
    writeFileSync(join(ws, "SOUL.md"), "k\n");
    expect(stagedOf(files, { oldText: "k", newText: "v" })).toMatchObject({ edits: [{ oldText: "k", newText: "v" }], content: "v\n" });
    expect(stagedOf(files, { old_string: "k", new_string: "w" })).toMatchObject({ edits: [{ oldText: "k", newText: "w" }], content: "w\n" });
    writeFileSync(join(ws, "SOUL.md"), "k k\n");
    expect(stagedOf(files, { oldText: "k", newText: "v", replaceAll: true })).toMatchObject({ edits: [{ oldText: "k", newText: "v", replaceAll: true }], content: "v v\n" });
    expect(stagedOf(files, { old_string: "k", new_string: "w", replace_all: true })).toMatchObject({ edits: [{ oldText: "k", newText: "w", replaceAll: true }], content: "w w\n" });
    // Only `true` asks for every occurrence; anything else is a single edit, which two occurrences refuse.
    expect(() => files.stage(request({ oldText: "k", newText: "v", replaceAll: "true" }))).toThrow("oldText occurs 2 times");
  });

  it("the camelCase spelling wins over the snake_case one", () => {
    writeFileSync(join(ws, "SOUL.md"), "k\n");
    const files = new WorkspaceMemoryFiles(ws);
    expect(stagedOf(files, { oldText: "k", old_string: "zz", newText: "v", new_string: "zz" }).edits).toEqual([{ oldText: "k", newText: "v" }]);
  });

  it("a half edit (old text without a string new text) is a write of its content, or refused", () => {
    const files = new WorkspaceMemoryFiles(ws);
    expect(stagedOf(files, { oldText: "k", content: "whole" })).toMatchObject({ operation: "write", content: "whole" });
    expect(() => files.stage(request({ oldText: "k", newText: 3 }))).toThrow("the write has no string content to stage");
  });

  it("stages into the workspace's own store, next to a target in a subfolder", () => {
    mkdirSync(join(ws, "memory"));
    const files = new WorkspaceMemoryFiles(ws);
    const staged = stagedOf(files, { content: "day" }, "memory/2026-11-23.md");
    expect(staged).toMatchObject({ targetPath: "memory/2026-11-23.md", resolvedPath: join(ws, "memory", "2026-11-23.md") });
  });
});
