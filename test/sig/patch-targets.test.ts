import { describe, expect, it } from "vitest";
import { extractPatchTargets } from "../../src/sig/patch-targets.js";

/**
 * The files a patch names, exactly: a name read too short or too long is a different file (a
 * protected file missed, or a harmless one refused), and a content line is not a header.
 */
describe("extractPatchTargets", () => {
  it("reads the apply_patch headers with or without spaces around the marker, trimmed", () => {
    expect(extractPatchTargets("*** Update File: soul.md  \n")).toEqual(["soul.md"]);
    expect(extractPatchTargets("***Update File:soul.md\n")).toEqual(["soul.md"]);
    expect(extractPatchTargets("*** Add File:notes.md\n*** Delete File:   old.md\n")).toEqual(["notes.md", "old.md"]);
    expect(extractPatchTargets("*** Update File: a.md\n***Move to:b.md\n")).toEqual(["a.md", "b.md"]);
  });

  it("a header-shaped text inside a line is content, not a header", () => {
    const patch = "*** Update File: notes.md\n@@\n+see *** Update File: soul.md\n+x --- soul.md\n+y diff --git a/soul.md b/soul.md\n+z rename to soul.md\n+w *** Move to: soul.md\n";
    expect(extractPatchTargets(patch)).toEqual(["notes.md"]);
  });

  it("reads unified diff headers, without the timestamp, with and without git's prefix", () => {
    expect(extractPatchTargets("--- a/soul.md\t2026-01-01 00:00\n+++ b/soul.md\t2026-01-02 00:00\n")).toEqual(["a/soul.md", "soul.md", "b/soul.md"]);
    expect(extractPatchTargets("--- data/a/x.md\n")).toEqual(["data/a/x.md"]);
    expect(extractPatchTargets("--- a/\n")).toEqual(["a/"]);
  });

  it("splits a git header at each ` b/`, and at its space when there is none", () => {
    expect(extractPatchTargets("diff --git a/x b/y\n")).toEqual(["a/x", "x", "b/y", "y"]);
    expect(extractPatchTargets("diff --git x y\n")).toEqual(["x", "y"]);
    expect(extractPatchTargets("diff --git soul.md\n")).toEqual(["soul.md"]);
    expect(extractPatchTargets("diff --git a/p b/q b/r\n")).toEqual(["a/p", "p", "b/q b/r", "q b/r", "a/p b/q", "p b/q", "b/r", "r"]);
  });

  it("unquotes git's quoted names, a pair and a single one", () => {
    expect(extractPatchTargets('diff --git "a/my soul.md" "b/my soul.md"\n')).toEqual(["a/my soul.md", "my soul.md", "b/my soul.md"]);
    expect(extractPatchTargets('diff --git "a/t\\tab.md" "b/new.md"\n')).toEqual(["a/t\tab.md", "t\tab.md", "b/new.md", "new.md"]);
    expect(extractPatchTargets('+++ "b/s\\x.md"\n')).toEqual(["b/s\\x.md", "s\\x.md"]);
    expect(extractPatchTargets('+++ "\n')).toEqual(['"']);
    expect(extractPatchTargets('+++ x"\n')).toEqual(['x"']);
    expect(extractPatchTargets('+++ "x\n')).toEqual(['"x']);
  });

  it("a header that names nothing names no file", () => {
    expect(extractPatchTargets("*** Update File:    \n+++ \"\"\n--- /dev/null\n")).toEqual([]);
  });

  it("reads rename and copy lines whole", () => {
    expect(extractPatchTargets("rename from notes/a b.md\nrename to soul.md\ncopy from x\ncopy to y\n")).toEqual(["notes/a b.md", "soul.md", "x", "y"]);
  });
});
