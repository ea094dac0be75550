import { describe, expect, it } from "vitest";
import fc from "fast-check";
import {
  DEFAULT_MEMORY_FILE_PATTERNS,
  DEFAULT_PROTECTED_PATTERNS,
  MemoryPatternError,
  memoryFileMatcher,
  normalizeWorkspaceRelative,
} from "../../src/core/memory-files.js";

const matcher = memoryFileMatcher();

describe("memory file matcher", () => {
  it("protects the seed's files and the four identity files", () => {
    for (const name of ["MEMORY.md", "AGENTS.md", "SOUL.md", "HEARTBEAT.md", "TOOLS.md", "IDENTITY.md", "USER.md", "BOOTSTRAP.md"]) {
      expect(matcher.matches(name), name).toBe(true);
    }
    expect(matcher.matches("memory/2026-02-10.md")).toBe(true);
    expect(matcher.matches("memory/projects/alpha.md")).toBe(true);
    expect(matcher.matches("memory/.hidden.md")).toBe(true);
  });

  it("rule: a dot file or dot directory under a protected folder is protected too", () => {
    // Built here, not at load time: what a test builds is what the mutation runner can attribute to it.
    const fresh = memoryFileMatcher();
    for (const name of ["memory/.hidden.md", "memory/.drafts/today.md", "Memory/.x/.y.MD"]) expect(fresh.matches(name), name).toBe(true);
  });

  it("protects provenant's own state directory", () => {
    expect(matcher.matches(".provenance/watermarks.json")).toBe(true);
    expect(matcher.matches(".provenance/blocked-writes/abc.json")).toBe(true);
  });

  it("leaves ordinary files alone", () => {
    for (const name of ["README.md", "notes/SOUL.md", "src/MEMORY.md", "memory/x.txt", "memory", "SOUL.md.bak", "xSOUL.md", "memories/x.md"]) {
      expect(matcher.matches(name), name).toBe(false);
    }
  });

  it("folds ASCII case", () => {
    for (const name of ["soul.md", "Soul.MD", "memory.md", "MEMORY/a.MD", "agents.md"]) expect(matcher.matches(name), name).toBe(true);
  });

  it("normalizes path tricks lexically", () => {
    for (const name of ["./SOUL.md", "a/../SOUL.md", "SOUL.md/.", "SOUL.md/", ".//SOUL.md", "memory/../memory/x.md", "memory//x.md"]) {
      expect(matcher.matches(name), name).toBe(true);
    }
  });

  it("rejects paths outside the workspace and absolute paths", () => {
    for (const name of ["../SOUL.md", "/SOUL.md", "a/../../SOUL.md", "", ".", "..", "SOUL.md\0"]) {
      expect(matcher.matches(name), JSON.stringify(name)).toBe(false);
    }
    expect(normalizeWorkspaceRelative("a/./b//c/")).toBe("a/b/c");
    expect(normalizeWorkspaceRelative("../x")).toBeNull();
  });

  it("does not treat unicode look-alikes as the real file", () => {
    const lookAlikes = [
      "\u0405OUL.md", // Cyrillic DZE
      "S\u041EUL.md", // Cyrillic O
      "\uFF33\uFF2F\uFF35\uFF2C.md", // fullwidth
      "\u017Foul.md", // long s, which Unicode case folding maps to s
      "SOUL.m\u0501", // Cyrillic komi de
      "SOUL\u2024md", // one dot leader
      "SOUL.md\u200B", // zero-width space
      "memory\u2215x.md", // division slash
    ];
    for (const name of lookAlikes) expect(matcher.matches(name), JSON.stringify(name)).toBe(false);
  });

  it("adds configured patterns after the defaults", () => {
    const m = memoryFileMatcher(["notes/*.md", "./PRIVATE.txt"]);
    expect(m.patterns.slice(0, DEFAULT_PROTECTED_PATTERNS.length)).toEqual(DEFAULT_PROTECTED_PATTERNS);
    expect(m.matches("notes/a.md")).toBe(true);
    expect(m.matches("private.txt")).toBe(true);
    expect(m.matches("SOUL.md")).toBe(true);
    expect(m.roots).toContainEqual({ dir: "notes", recursive: true });
    expect(m.roots).toContainEqual({ dir: "", recursive: false });
    expect(m.roots).toContainEqual({ dir: "memory", recursive: true });
  });

  it("refuses patterns that would unprotect or escape", () => {
    for (const bad of ["", "  ", "/etc/passwd", "../x.md", "a/../../x", "!SOUL.md", "a\0b"]) {
      expect(() => memoryFileMatcher([bad]), JSON.stringify(bad)).toThrow(MemoryPatternError);
    }
    expect(() => memoryFileMatcher([42 as unknown as string])).toThrow(/non-empty string/);
  });

  it("exports the default list frozen", () => {
    expect(Object.isFrozen(DEFAULT_MEMORY_FILE_PATTERNS)).toBe(true);
    expect(DEFAULT_MEMORY_FILE_PATTERNS).toContain("SOUL.md");
  });

  it("never throws on arbitrary input", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary", maxLength: 40 }), (s) => {
        const result = matcher.matches(s);
        expect(typeof result).toBe("boolean");
      }),
      { numRuns: 2000 },
    );
  });

  it("matches any lexical disguise of a protected name and no name outside the workspace", () => {
    const names = fc.constantFrom("SOUL.md", "MEMORY.md", "memory/day.md", "TOOLS.md");
    const noise = fc.array(fc.constantFrom(".", "a", "b", "..x", "memory"), { maxLength: 4 });
    fc.assert(
      fc.property(names, noise, fc.boolean(), fc.boolean(), (name, dirs, dotPrefix, trailing) => {
        // Each real directory is undone by a following "..", "." is a no-op: the path names `name`.
        const detour = dirs.flatMap((d) => (d === "." ? ["."] : [d, ".."]));
        const flipped = [...name].map((c, i) => (i % 2 === 0 ? c.toLowerCase() : c.toUpperCase())).join("");
        const path = `${dotPrefix ? "./" : ""}${[...detour, flipped].join("/")}${trailing ? "/." : ""}`;
        expect(matcher.matches(path)).toBe(true);
        expect(matcher.matches(`../${path}`)).toBe(false);
      }),
      { numRuns: 1000 },
    );
  });
});

describe("configured protected-file patterns", () => {
  it("without extra patterns, the defaults alone are in force", () => {
    expect(memoryFileMatcher().patterns).toEqual(DEFAULT_PROTECTED_PATTERNS);
  });

  it("are kept as written, a leading ./ dropped", () => {
    expect(memoryFileMatcher(["./PRIVATE.txt", "notes/./x.md", "a./b.md"]).patterns.slice(DEFAULT_PROTECTED_PATTERNS.length)).toEqual([
      "PRIVATE.txt",
      "notes/./x.md",
      "a./b.md",
    ]);
  });

  it("a refused pattern is named with the reason", () => {
    for (const [bad, reason] of [
      ["", "must be a non-empty string"],
      ["a\0b", "must not contain a NUL byte"],
      ["/etc/passwd", "must be relative to the workspace, not absolute"],
      ["a/../../x", "must not contain '..'"],
      ["!SOUL.md", "negation would unprotect files; list only what to protect"],
    ] as const) {
      let thrown: unknown;
      try {
        memoryFileMatcher([bad]);
      } catch (error) {
        thrown = error;
      }
      expect(thrown, JSON.stringify(bad)).toBeInstanceOf(MemoryPatternError);
      expect((thrown as Error).name).toBe("MemoryPatternError");
      expect((thrown as Error).message).toBe(`protected file pattern ${JSON.stringify(bad)}: ${reason}`);
    }
  });

  it("give the directories a hard-link check walks, recursive where a glob can reach any depth", () => {
    expect(memoryFileMatcher(["notes/PRIVATE.txt", "memory/INDEX.md", "deep/a/b.txt", "logs/*.md"]).roots).toEqual([
      { dir: "", recursive: false },
      { dir: "memory", recursive: true },
      { dir: ".provenance", recursive: true },
      { dir: "notes", recursive: false },
      { dir: "deep/a", recursive: false },
      { dir: "logs", recursive: true },
    ]);
  });
});

describe("workspace-relative normalization", () => {
  it.each([
    ["a/./b//c/", "a/b/c"],
    ["SOUL.md/", "SOUL.md"],
    ["a/b/..", "a"],
    ["x", "x"],
    ["", null],
    [".", null],
    ["a/..", null],
    ["..", null],
    ["a/../..", null],
    ["../x", null],
    ["/", null],
    ["/SOUL.md", null],
    ["//SOUL.md", null],
    ["a\0b", null],
    ["SOUL.md\0", null],
  ] as const)("%j -> %j", (path, expected) => {
    expect(normalizeWorkspaceRelative(path)).toBe(expected);
  });
});
