import { posix } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  findFilePolicy,
  isIdentityAuthorized,
  matchesFilePattern,
  matchesIdentityPattern,
  resolveFilePolicy,
} from "../../src/sig/file-policy.js";
import { toPolicyPath } from "../../src/sig/project-path.js";

/** sig's matcher as its source states it, used as the oracle for generated inputs. */
function referenceMatch(pattern: string, filePath: string): boolean {
  if (!pattern.includes("*")) return pattern === filePath;
  const patternDir = posix.dirname(pattern);
  const fileDir = posix.dirname(filePath);
  if (patternDir !== fileDir) return false;
  const patternName = pattern.slice(patternDir === "." ? 0 : patternDir.length + 1);
  const fileName = filePath.slice(fileDir === "." ? 0 : fileDir.length + 1);
  const escaped = patternName.replace(/[.+^${}()|[\]\\]/g, "\\$&").replace(/\*/g, ".*");
  return new RegExp(`^${escaped}$`).test(fileName);
}

const segment = fc.stringMatching(/^[a-c.]{1,4}$/).filter((s) => s !== "." && s !== "..");
const filePath = fc.array(segment, { minLength: 1, maxLength: 4 }).map((parts) => parts.join("/"));
const patternSegment = fc.stringMatching(/^[a-c.*]{1,4}$/).filter((s) => s !== "." && s !== "..");
const pattern = fc.array(patternSegment, { minLength: 1, maxLength: 4 }).map((parts) => parts.join("/"));

describe("file pattern matching (fast-check)", () => {
  it("agrees with sig's matcher on every generated pattern and path", () => {
    fc.assert(
      fc.property(pattern, filePath, (p, f) => {
        expect(matchesFilePattern(p, f)).toBe(referenceMatch(p, f));
      }),
      { numRuns: 5000 },
    );
  });

  it("agrees with sig's matcher on paths built to match the pattern", () => {
    fc.assert(
      fc.property(pattern, fc.array(fc.stringMatching(/^[a-c.]{0,3}$/), { minLength: 8, maxLength: 8 }), (p, fills) => {
        let i = 0;
        const f = p.replace(/\*/g, () => fills[i++ % fills.length] ?? "");
        expect(matchesFilePattern(p, f)).toBe(referenceMatch(p, f));
      }),
      { numRuns: 3000 },
    );
  });

  it("never lets '*' cross a directory boundary", () => {
    fc.assert(
      fc.property(filePath, segment, (dir, name) => {
        expect(matchesFilePattern(`${dir}/*`, `${dir}/${name}`)).toBe(true);
        expect(matchesFilePattern(`${dir}/*`, `${dir}/${name}/${name}`)).toBe(false);
        expect(matchesFilePattern("*", `${dir}/${name}`)).toBe(false);
      }),
    );
  });

  it("treats '?' and regex characters literally (sig's regex lets '?' act as a quantifier)", () => {
    expect(matchesFilePattern("a?*.txt", "a?x.txt")).toBe(true);
    expect(matchesFilePattern("a?*.txt", "x.txt")).toBe(false);
    expect(matchesFilePattern("(a)*", "(a)b")).toBe(true);
    expect(matchesFilePattern("[ab]*", "ab")).toBe(false);
  });

  it("folds case on both sides when asked", () => {
    fc.assert(
      fc.property(pattern, filePath, (p, f) => {
        expect(matchesFilePattern(p.toUpperCase(), f, { caseInsensitive: true })).toBe(referenceMatch(p.toLowerCase(), f.toLowerCase()));
      }),
    );
    expect(matchesFilePattern("soul.md", "SOUL.md")).toBe(false);
    expect(matchesFilePattern("soul.md", "SOUL.md", { caseInsensitive: true })).toBe(true);
  });

  it("an exact key always outranks every glob that also matches", () => {
    fc.assert(
      fc.property(filePath, fc.array(pattern, { maxLength: 6 }), (f, globs) => {
        const files: Record<string, { mutable: boolean; requireApproval?: boolean }> = {};
        for (const g of globs) files[g] = { mutable: true };
        files[f] = { mutable: false, requireApproval: true };
        expect(findFilePolicy({ version: 1, files }, f)?.pattern).toBe(f);
      }),
    );
  });

  it("picks the longest matching glob", () => {
    fc.assert(
      fc.property(filePath, fc.array(pattern, { minLength: 1, maxLength: 8 }), (f, globs) => {
        const files = Object.fromEntries(globs.filter((g) => g.includes("*")).map((g) => [g, { mutable: true }]));
        const matching = Object.keys(files).filter((g) => referenceMatch(g, f));
        const found = findFilePolicy({ version: 1, files }, f);
        if (matching.length === 0) expect(found).toBeUndefined();
        else expect(found?.pattern.length).toBe(Math.max(...matching.map((g) => g.length)));
      }),
    );
  });

  it("does not treat inherited object keys as policies", () => {
    const files = JSON.parse('{"__proto__": {"mutable": true}, "soul.md": {"mutable": true}}') as Record<string, { mutable: boolean }>;
    expect(resolveFilePolicy({ version: 1, files }, "constructor")).toEqual({ mutable: false });
    expect(resolveFilePolicy({ version: 1, files }, "toString")).toEqual({ mutable: false });
  });

  it("converts platform separators before matching (Windows paths)", () => {
    expect(toPolicyPath("llm\\prompts\\x.txt", "\\")).toBe("llm/prompts/x.txt");
    expect(matchesFilePattern("llm/prompts/*.txt", toPolicyPath("llm\\prompts\\x.txt", "\\"))).toBe(true);
  });
});

describe("identity patterns (fast-check)", () => {
  const text = fc.string({ maxLength: 12 });

  it("a '*' pattern admits exactly the identities starting with its prefix", () => {
    fc.assert(
      fc.property(text, text, text, (prefix, tail, identity) => {
        fc.pre(!prefix.includes("*"));
        expect(matchesIdentityPattern(`${prefix}*${tail}`, prefix + identity)).toBe(true);
        expect(matchesIdentityPattern(`${prefix}*`, identity)).toBe(identity.startsWith(prefix));
      }),
    );
  });

  it("a pattern without '*' admits only itself", () => {
    fc.assert(
      fc.property(text, text, (pattern, identity) => {
        fc.pre(!pattern.includes("*"));
        expect(matchesIdentityPattern(pattern, identity)).toBe(pattern === identity);
      }),
    );
  });

  it("a policy without authorizedIdentities admits anyone; an empty match list admits no one else", () => {
    expect(isIdentityAuthorized({ mutable: true }, "anyone")).toBe(true);
    expect(isIdentityAuthorized({ mutable: true, authorizedIdentities: [] }, "anyone")).toBe(true);
    expect(isIdentityAuthorized({ mutable: true, authorizedIdentities: ["owner:*"] }, "admin:adam")).toBe(false);
  });
});

describe("containment on Windows paths", () => {
  it("gives policy paths with '/' and refuses escapes", async () => {
    const { win32 } = await import("node:path");
    const { resolveContainedPath, PathEscapeError } = await import("../../src/sig/project-path.js");
    expect(resolveContainedPath("C:\\proj", "llm\\prompts\\x.txt", win32)).toBe("llm/prompts/x.txt");
    expect(resolveContainedPath("C:\\proj", "llm/prompts/../../soul.md", win32)).toBe("soul.md");
    expect(matchesFilePattern("llm/prompts/*.txt", resolveContainedPath("C:\\proj", "llm\\prompts\\x.txt", win32))).toBe(true);
    for (const escape of ["..\\x", "D:\\other\\soul.md", "C:\\proj2\\soul.md"]) {
      expect(() => resolveContainedPath("C:\\proj", escape, win32)).toThrow(PathEscapeError);
    }
  });
});

describe("file patterns and policies at their edges", () => {
  it("agrees with sig's matcher where a name is shorter than the pattern's fixed parts, or they overlap", () => {
    const cases: [string, string][] = [
      ["a*a", "a"],
      ["a*a", "aa"],
      ["ab*b", "ab"],
      ["*x*x", "x"],
      ["*x*x", "xx"],
      ["*x*x", "xax"],
      ["*x*x*", "x"],
      ["*x*x*", "xyx"],
      ["*ab*b", "ab"],
      ["*ab*b", "abb"],
      ["a/*", "a/b/"],
      ["a/*", "a//b"],
      ["llm/*.txt", "llm/.txt"],
    ];
    for (const [p, f] of cases) expect(matchesFilePattern(p, f), `${p} ~ ${f}`).toBe(referenceMatch(p, f));
  });

  it("an exact key outranks a longer glob also under case folding; the longest glob wins whatever the order", () => {
    const files = { "a.md": { mutable: false }, "a*.md": { mutable: true } };
    expect(findFilePolicy({ version: 1, files }, "A.MD", { caseInsensitive: true })).toEqual({ pattern: "a.md", policy: { mutable: false } });
    const globs = { "llm/prompts/*": { mutable: false }, "llm/prompts/*.md": { mutable: true }, "llm/*": { mutable: true } };
    expect(findFilePolicy({ version: 1, files: globs }, "llm/prompts/x.md")?.pattern).toBe("llm/prompts/*.md");
    const reversed = { "llm/prompts/*.md": { mutable: true }, "llm/prompts/*": { mutable: false } };
    expect(findFilePolicy({ version: 1, files: reversed }, "llm/prompts/x.md")?.pattern).toBe("llm/prompts/*.md");
    const tie = { "a*.md": { mutable: true }, "*b.md": { mutable: false } };
    expect(findFilePolicy({ version: 1, files: tie }, "ab.md")?.pattern).toBe("a*.md");
  });

  it("a name an object inherits is no policy at all", () => {
    const files = JSON.parse('{"soul.md": {"mutable": true}}') as Record<string, { mutable: boolean }>;
    for (const name of ["constructor", "toString", "__proto__", "hasOwnProperty"]) expect(findFilePolicy({ version: 1, files }, name)).toBeUndefined();
  });

  it("any one of several identity patterns admits", () => {
    const policy = { mutable: true, authorizedIdentities: ["owner:*", "admin:ops"] };
    expect(isIdentityAuthorized(policy, "admin:ops")).toBe(true);
    expect(isIdentityAuthorized(policy, "owner:+1:telegram")).toBe(true);
    expect(isIdentityAuthorized(policy, "admin:other")).toBe(false);
  });

  it("containment refuses the project root itself, its parent and a NUL byte", async () => {
    const { resolveContainedPath, PathEscapeError } = await import("../../src/sig/project-path.js");
    for (const escape of [".", "", "..", "x/../..", "soul.md\0"]) expect(() => resolveContainedPath("/proj", escape)).toThrow(PathEscapeError);
    expect(resolveContainedPath("/proj", "..soul.md")).toBe("..soul.md");
    const error = new PathEscapeError("../x");
    expect([error.name, error.message, error.requested]).toEqual(["PathEscapeError", "Path escapes project root: ../x", "../x"]);
  });
});
