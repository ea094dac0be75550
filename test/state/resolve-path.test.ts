import { afterEach, beforeEach, describe, expect, it } from "vitest";
import fc from "fast-check";
import { linkSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join, posix, relative, resolve } from "node:path";
import { memoryFileMatcher } from "../../src/core/memory-files.js";
import { PathResolutionError, protectedMemoryTarget, resolveToolPath } from "../../src/state/resolve-path.js";

let root: string;
let ws: string;
let outside: string;

beforeEach(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), "provenant-resolve-")));
  ws = join(root, "workspace");
  outside = join(root, "outside");
  mkdirSync(join(ws, "memory"), { recursive: true });
  mkdirSync(join(ws, "docs"), { recursive: true });
  mkdirSync(outside);
  writeFileSync(join(ws, "SOUL.md"), "soul\n");
  writeFileSync(join(ws, "memory", "day.md"), "day\n");
  writeFileSync(join(ws, "notes.txt"), "notes\n");
});

afterEach(() => rmSync(root, { recursive: true, force: true }));

const oracle = memoryFileMatcher();
const target = (raw: string, extra?: string[]) => protectedMemoryTarget(ws, raw, extra);

/**
 * Where a file created at the absolute path `abs` lands, asked of the kernel itself: the longest
 * prefix that realpath(3) resolves (symlinks followed before `..`, exactly as open(2) does), then
 * the missing names below it as a tool that creates parent directories would create them. Null
 * when a `..` follows a missing name: the kernel cannot climb out of a directory that is not there.
 */
function kernelLanding(abs: string): string | null {
  const parts = abs.split("/");
  for (let i = parts.length; i > 0; i--) {
    let real: string;
    try {
      real = realpathSync.native(parts.slice(0, i).join("/") || "/");
    } catch {
      continue;
    }
    const missing = parts.slice(i).filter((p) => p !== "" && p !== ".");
    if (missing.includes("..")) return null;
    return [real, ...missing].join("/");
  }
  return null;
}

/** The memory file a landing place is, if it is one of the workspace's. */
function protectedLanding(landing: string | null): string | null {
  if (landing === null) return null;
  const rel = relative(ws, landing);
  return rel !== "" && !rel.startsWith("..") && oracle.matches(rel) ? rel : null;
}

describe("protectedMemoryTarget", () => {
  it("finds memory files by relative, dotted and absolute paths", () => {
    for (const raw of ["SOUL.md", "./SOUL.md", "docs/../SOUL.md", "SOUL.md/.", join(ws, "SOUL.md"), "memory/../memory/day.md"]) {
      const hit = target(raw);
      expect(hit, raw).not.toBeNull();
    }
    expect(target("SOUL.md")).toEqual({ resolvedPath: join(ws, "SOUL.md"), relativePath: "SOUL.md" });
    expect(target("memory/../memory/day.md")).toEqual({ resolvedPath: join(ws, "memory", "day.md"), relativePath: "memory/day.md" });
  });

  it("finds a memory file that does not exist yet, in any case", () => {
    expect(target("AGENTS.md")?.relativePath).toBe("AGENTS.md");
    expect(target("soul.md")?.relativePath).toBe("soul.md");
    expect(target("Soul.MD")?.relativePath).toBe("Soul.MD");
    expect(target("memory/new/deeper.md")?.relativePath).toBe("memory/new/deeper.md");
    expect(target("Memory/x.md")).not.toBeNull();
  });

  it("lets ordinary files through", () => {
    for (const raw of ["notes.txt", "docs/SOUL.md", "README.md", join(outside, "SOUL.md"), "../outside/SOUL.md"]) {
      expect(target(raw), raw).toBeNull();
    }
  });

  it("follows a symlinked directory to a file that does not exist yet", () => {
    symlinkSync(join(ws, "memory"), join(ws, "docs", "mem"));
    expect(target("docs/mem/new.md")).toEqual({ resolvedPath: join(ws, "memory", "new.md"), relativePath: "memory/new.md" });
  });

  it("catches a path outside the workspace that leads back in through a symlink", () => {
    symlinkSync(ws, join(outside, "ws-link"));
    symlinkSync(join(ws, "SOUL.md"), join(outside, "soul-link"));
    expect(target(join(outside, "ws-link", "SOUL.md"))?.relativePath).toBe("SOUL.md");
    expect(target(join(outside, "soul-link"))?.relativePath).toBe("SOUL.md");
    expect(target("../outside/ws-link/memory/x.md")?.relativePath).toBe("memory/x.md");
  });

  it("catches a dangling symlink whose target would be a memory file", () => {
    symlinkSync(join(ws, "HEARTBEAT.md"), join(ws, "innocent.txt"));
    expect(target("innocent.txt")?.relativePath).toBe("HEARTBEAT.md");
    symlinkSync("IDENTITY.md", join(ws, "relative-link"));
    expect(target("relative-link")?.relativePath).toBe("IDENTITY.md");
  });

  it("checks both the kernel's and the lexical reading of '..' after a symlink", () => {
    // docs/out -> outside: the kernel reads docs/out/../SOUL.md as <root>/SOUL.md, path.resolve as
    // docs/SOUL.md; neither is a memory file of the workspace.
    symlinkSync(outside, join(ws, "docs", "out"));
    expect(target("docs/out/../SOUL.md")).toBeNull();
    // docs/m -> outside/mem -> workspace/memory: the kernel reads docs/m/../SOUL.md as workspace/SOUL.md.
    symlinkSync(join(ws, "memory"), join(outside, "mem"));
    symlinkSync(join(outside, "mem"), join(ws, "docs", "m"));
    expect(target("docs/m/../SOUL.md")?.relativePath).toBe("SOUL.md");
    // Lexically "x/../SOUL.md" is SOUL.md even when x is a symlink that leads elsewhere.
    symlinkSync(join(outside), join(ws, "x"));
    expect(target("x/../SOUL.md")?.relativePath).toBe("SOUL.md");
  });

  it("rule: the lexical reading — x/../docs/mem/new.md is caught when x leads outside and docs/mem is a memory folder", () => {
    // The kernel reads x/../docs/mem/new.md as <outside's parent>/docs/mem/new.md; a tool that
    // resolves the path as a string first (path.resolve) writes workspace/docs/mem/new.md, which
    // docs/mem -> memory makes memory/new.md. Only the lexical reading sees that landing.
    symlinkSync(outside, join(ws, "x"));
    symlinkSync(join(ws, "memory"), join(ws, "docs", "mem"));
    expect(target("x/../docs/mem/new.md")).toEqual({ resolvedPath: join(ws, "memory", "new.md"), relativePath: "memory/new.md" });
    // The same written absolute (a template string: join() would remove the x/.. itself).
    expect(target(`${ws}/x/../docs/mem/new.md`)?.relativePath).toBe("memory/new.md");
    // The same through a configured memory folder that exists only by name.
    expect(target("x/../docs/notes/new.md", ["docs/notes/**"])?.relativePath).toBe("docs/notes/new.md");
  });

  it("rule: the named check — a protected name counts even where the alias scan does not reach", () => {
    // memory/d1/.../d17/x.md is a symlink out of the workspace, deeper than the alias scan walks:
    // both readings land outside, so only the name the path gives marks it protected.
    const deep = join(ws, "memory", ...Array.from({ length: 17 }, (_, i) => `d${i + 1}`));
    mkdirSync(deep, { recursive: true });
    writeFileSync(join(outside, "plain.txt"), "plain\n");
    symlinkSync(join(outside, "plain.txt"), join(deep, "x.md"));
    const raw = relative(ws, join(deep, "x.md"));
    expect(target(raw)).toEqual({ resolvedPath: join(outside, "plain.txt"), relativePath: raw });
  });

  it("catches a hard link to a memory file", () => {
    linkSync(join(ws, "SOUL.md"), join(ws, "docs", "harmless.txt"));
    expect(target("docs/harmless.txt")).toEqual({ resolvedPath: join(ws, "SOUL.md"), relativePath: "SOUL.md" });
    linkSync(join(ws, "memory", "day.md"), join(outside, "day-copy"));
    expect(target(join(outside, "day-copy"))?.relativePath).toBe("memory/day.md");
    linkSync(join(ws, "notes.txt"), join(ws, "docs", "notes-link.txt"));
    expect(target("docs/notes-link.txt")).toBeNull();
  });

  it("catches writes to a memory directory that is a symlink out of the workspace", () => {
    const synced = join(outside, "vault");
    mkdirSync(synced);
    writeFileSync(join(synced, "old.md"), "old\n");
    rmSync(join(ws, "memory"), { recursive: true });
    symlinkSync(synced, join(ws, "memory"));
    expect(target("memory/new.md")).toEqual({ resolvedPath: join(synced, "new.md"), relativePath: "memory/new.md" });
    expect(target(join(synced, "new.md"))).toEqual({ resolvedPath: join(synced, "new.md"), relativePath: "memory/new.md" });
    expect(target(join(synced, "old.md"))?.relativePath).toBe("memory/old.md");
    expect(target(join(synced, "notes.txt"))).toBeNull();
    // Beside the synced folder is not in it, even under a pattern that takes anything in memory/.
    expect(target(join(outside, "elsewhere.txt"), ["memory/**"])).toBeNull();
  });

  it("catches writes to the file a protected symlink leads to, existing or not", () => {
    writeFileSync(join(outside, "soul.txt"), "dotfile soul\n");
    rmSync(join(ws, "SOUL.md"));
    symlinkSync(join(outside, "soul.txt"), join(ws, "SOUL.md"));
    expect(target(join(outside, "soul.txt"))).toEqual({ resolvedPath: join(outside, "soul.txt"), relativePath: "SOUL.md" });
    symlinkSync(join(outside, "agents-not-yet.txt"), join(ws, "AGENTS.md"));
    expect(target("../outside/agents-not-yet.txt")?.relativePath).toBe("AGENTS.md");
    writeFileSync(join(ws, "docs", "plan.txt"), "plan\n");
    symlinkSync("../docs/plan.txt", join(ws, "memory", "plan.md"));
    expect(target("docs/plan.txt")).toEqual({ resolvedPath: join(ws, "docs", "plan.txt"), relativePath: "memory/plan.md" });
    mkdirSync(join(outside, "projects"));
    symlinkSync(join(outside, "projects"), join(ws, "memory", "projects"));
    expect(target(join(outside, "projects", "alpha.md"))?.relativePath).toBe("memory/projects/alpha.md");
    expect(target(join(outside, "projects", "alpha.txt"))).toBeNull();
  });

  it("is not derailed by a symlink loop among the memory files", () => {
    symlinkSync(join(ws, "memory", "b.md"), join(ws, "memory", "a.md"));
    symlinkSync(join(ws, "memory", "a.md"), join(ws, "memory", "b.md"));
    expect(target("notes.txt")).toBeNull();
    expect(() => target("memory/a.md")).toThrow(/too many levels/);
  });

  it("reaches the workspace by another spelling of its own path", () => {
    symlinkSync(ws, join(root, "alias"));
    expect(protectedMemoryTarget(join(root, "alias"), "SOUL.md")).toEqual({ resolvedPath: join(ws, "SOUL.md"), relativePath: "SOUL.md" });
  });

  it("expands ~ like the file tools do", () => {
    const rel = relative(homedir(), join(ws, "SOUL.md"));
    if (!rel.startsWith("..")) expect(target(`~/${rel}`)?.relativePath).toBe("SOUL.md");
    expect(target("~")).toBeNull();
  });

  it("applies configured extra patterns", () => {
    expect(target("docs/plan.md")).toBeNull();
    expect(target("docs/plan.md", ["docs/*.md"])?.relativePath).toBe("docs/plan.md");
  });

  it("reports a symlink loop and a missing workspace precisely", () => {
    symlinkSync(join(ws, "loop-b"), join(ws, "loop-a"));
    symlinkSync(join(ws, "loop-a"), join(ws, "loop-b"));
    expect(() => target("loop-a")).toThrow(PathResolutionError);
    expect(() => target("loop-a")).toThrow(/too many levels of symbolic links/);
    expect(() => protectedMemoryTarget(join(root, "nope"), "SOUL.md")).toThrow(/workspace cannot be opened \(ENOENT\)/);
  });

  it("ignores empty and NUL-bearing paths, and the workspace itself", () => {
    expect(target("")).toBeNull();
    expect(target("SOUL.md\0.txt")).toBeNull();
    expect(target(".")).toBeNull();
    expect(target(ws)).toBeNull();
  });

  it("does not take unicode look-alikes for the real file, and does not crash on them", () => {
    for (const raw of ["\u0405OUL.md", "\uFF33\uFF2F\uFF35\uFF2C.md", "\u017Foul.md", "SOUL.md\u200B", "memory\u2215x.md"]) {
      expect(target(raw), JSON.stringify(raw)).toBeNull();
    }
  });

  it("survives fuzzed path tricks and catches every landing the kernel gives a protected name", () => {
    symlinkSync(join(ws, "memory"), join(ws, "docs", "mem"));
    symlinkSync(ws, join(outside, "back"));
    symlinkSync(outside, join(ws, "x"));
    // Single names, plus the pairs that make the tricks (climbing out of a symlink, entering one)
    // so that they come up often enough in 1,500 runs.
    const segment = fc.oneof(
      { weight: 3, arbitrary: fc.constantFrom(".", "..", "docs", "memory", "mem", "SOUL.md", "soul.MD", "day.md", "new.md", "x", "back", "", "\u0405OUL.md", "~") },
      { weight: 1, arbitrary: fc.constantFrom("x/..", "docs/mem", "back/..") },
    );
    let protectedSeen = 0;
    fc.assert(
      fc.property(fc.array(segment, { maxLength: 6 }), fc.constantFrom("", "/", join(outside, "back") + "/"), (parts, prefix) => {
        const raw = prefix + parts.join("/");
        let hit: ReturnType<typeof target> = null;
        try {
          hit = target(raw);
        } catch (error) {
          expect(error).toBeInstanceOf(PathResolutionError);
          return;
        }
        if (hit !== null) {
          // A canonical path: no ".", "..", doubled or trailing slash left in it.
          expect(hit.resolvedPath).toBe(posix.normalize(hit.resolvedPath).replace(/(.)\/$/, "$1"));
          expect(hit.resolvedPath.startsWith(ws + "/")).toBe(true);
          expect(hit.relativePath.startsWith("..")).toBe(false);
        }
        if (raw.startsWith("~")) return;
        // Reference: the kernel's own resolution of the path as written, and of the path a tool
        // that normalizes strings first (path.resolve) hands it. A protected landing must be caught.
        const abs = raw.startsWith("/") ? raw : `${ws}/${raw}`;
        const landings = [protectedLanding(kernelLanding(abs)), protectedLanding(kernelLanding(resolve(ws, raw)))];
        if (landings.some((l) => l !== null)) {
          protectedSeen += 1;
          expect(hit, raw).not.toBeNull();
        }
      }),
      { numRuns: 1500 },
    );
    // The reference is not vacuous: some of the generated paths do land on memory files.
    expect(protectedSeen).toBeGreaterThan(20);
  });

  it("the kernel reference reads x/../docs/mem/new.md as the kernel and as path.resolve do", () => {
    symlinkSync(join(ws, "memory"), join(ws, "docs", "mem"));
    symlinkSync(outside, join(ws, "x"));
    expect(kernelLanding(`${ws}/x/../docs/mem/new.md`)).toBe(join(root, "docs", "mem", "new.md"));
    expect(kernelLanding(resolve(ws, "x/../docs/mem/new.md"))).toBe(join(ws, "memory", "new.md"));
    expect(kernelLanding(`${ws}/nope/../SOUL.md`)).toBeNull();
  });
});

describe("where a path lands, at the edges", () => {
  it("gives the landing as a canonical path, however the path or a symlink's target is spelled", () => {
    mkdirSync(join(ws, "memory", "sub"));
    symlinkSync("../memory//x.md", join(ws, "docs", "doubled"));
    for (const raw of ["memory//day.md", "./memory/./day.md", "memory/sub/../day.md", "memory/sub/./../day.md/"]) {
      expect(resolveToolPath(ws, raw), raw).toBe(join(ws, "memory", "day.md"));
    }
    expect(target("memory/sub/../day.md")).toEqual({ resolvedPath: join(ws, "memory", "day.md"), relativePath: "memory/day.md" });
    expect(resolveToolPath(ws, "docs/doubled")).toBe(join(ws, "memory", "x.md"));
    expect(target("docs/doubled")).toEqual({ resolvedPath: join(ws, "memory", "x.md"), relativePath: "memory/x.md" });
  });

  it("reads the root and a symlink to it as /", () => {
    symlinkSync("/", join(ws, "to-root"));
    expect(resolveToolPath(ws, "/")).toBe("/");
    expect(resolveToolPath(ws, "to-root")).toBe("/");
    expect(resolveToolPath(ws, "to-root/tmp/../x")).toBe("/x");
  });

  it("expands ~ and ~/ to the home directory, and only those", () => {
    expect(resolveToolPath(ws, "~")).toBe(realpathSync.native(homedir()));
    expect(resolveToolPath(ws, "~/x/y")).toBe(join(realpathSync.native(homedir()), "x", "y"));
    expect(resolveToolPath(ws, "~x")).toBe(join(ws, "~x"));
    expect(resolveToolPath(ws, "a/~/b")).toBe(join(ws, "a", "~", "b"));
  });

  it("keeps a path through a regular file as written instead of failing (ENOTDIR)", () => {
    expect(target("notes.txt/x.md")).toBeNull();
    expect(resolveToolPath(ws, "notes.txt/x.md")).toBe(join(ws, "notes.txt", "x.md"));
    expect(target("notes.txt/../MEMORY.md")?.relativePath).toBe("MEMORY.md");
  });

  it("fails precisely on a name the kernel refuses (ENAMETOOLONG), naming the path", () => {
    const long = "n".repeat(300);
    const error = (() => {
      try {
        target(`docs/${long}/x.md`);
      } catch (e) {
        return e;
      }
      return null;
    })();
    expect(error).toBeInstanceOf(PathResolutionError);
    expect(error).toMatchObject({ name: "PathResolutionError", code: "ENAMETOOLONG", rawPath: `docs/${long}/x.md` });
    expect((error as Error).message).toBe(`cannot resolve ${JSON.stringify(`docs/${long}/x.md`)}: lstat ${JSON.stringify(join(ws, "docs", long))} failed (ENAMETOOLONG)`);
  });

  it("refuses a workspace that is a file, naming it", () => {
    const file = join(ws, "notes.txt");
    expect(() => protectedMemoryTarget(file, "SOUL.md")).toThrow(new PathResolutionError(file, "ENOTDIR", "the workspace is not a directory"));
    expect(() => protectedMemoryTarget(file, "SOUL.md")).toThrow(`cannot resolve ${JSON.stringify(file)}: the workspace is not a directory`);
  });

  it("follows at most 40 symlinks in one path, as Linux does", () => {
    const chain = (n: number, prefix: string) => {
      // prefix0 -> prefix1 -> ... -> prefix{n-1} -> SOUL.md: n links followed.
      for (let i = 0; i < n; i++) symlinkSync(i === n - 1 ? "SOUL.md" : `${prefix}${i + 1}`, join(ws, `${prefix}${i}`));
    };
    chain(40, "ok");
    chain(41, "long");
    expect(target("ok0")).toEqual({ resolvedPath: join(ws, "SOUL.md"), relativePath: "SOUL.md" });
    expect(() => target("long0")).toThrow(/too many levels of symbolic links/);
  });

  it("rule: a name that starts with '..' is a file of the workspace, not a way out", () => {
    // With a pattern that covers dotfiles, "..plan.md" is protected; only a leading ".." component leaves.
    expect(target("..plan.md", ["*.md"])).toEqual({ resolvedPath: join(ws, "..plan.md"), relativePath: "..plan.md" });
    expect(target("docs/../..plan.md", ["*.md"])?.relativePath).toBe("..plan.md");
    expect(target("../..plan.md", ["*.md"])).toBeNull();
  });

  it("rule: a relative path that climbs out is read from the directory the tool was given, also when that is a symlink", () => {
    // The tool works in links/alias (-> workspace); links/other -> workspace as well. Lexically
    // ../other/SOUL.md from links/alias is links/other/SOUL.md, which is the workspace's SOUL.md; the
    // kernel would read it from the workspace's real parent, where there is no "other".
    mkdirSync(join(root, "links"));
    symlinkSync(ws, join(root, "links", "alias"));
    symlinkSync(ws, join(root, "links", "other"));
    expect(protectedMemoryTarget(join(root, "links", "alias"), "../other/SOUL.md")).toEqual({ resolvedPath: join(ws, "SOUL.md"), relativePath: "SOUL.md" });
  });

  it("finds an alias of the lexical landing when the kernel's landing has none", () => {
    // memory/plan.md -> ../docs/plan.txt. The kernel reads x/../docs/plan.txt outside the
    // workspace; path.resolve reads docs/plan.txt, which the protected symlink leads to.
    writeFileSync(join(ws, "docs", "plan.txt"), "plan\n");
    symlinkSync("../docs/plan.txt", join(ws, "memory", "plan.md"));
    symlinkSync(outside, join(ws, "x"));
    expect(target("x/../docs/plan.txt")).toEqual({ resolvedPath: join(ws, "docs", "plan.txt"), relativePath: "memory/plan.md" });
  });

  it("scans for aliases 16 directories deep and no deeper (bounded work)", () => {
    const dirs = (n: number, tag: string) => join(ws, "memory", ...Array.from({ length: n }, (_, i) => `${tag}${i + 1}`));
    mkdirSync(dirs(16, "a"), { recursive: true });
    mkdirSync(dirs(17, "b"), { recursive: true });
    writeFileSync(join(outside, "at-16.txt"), "x\n");
    writeFileSync(join(outside, "at-17.txt"), "x\n");
    symlinkSync(join(outside, "at-16.txt"), join(dirs(16, "a"), "x.md"));
    symlinkSync(join(outside, "at-17.txt"), join(dirs(17, "b"), "x.md"));
    expect(target(join(outside, "at-16.txt"))?.relativePath).toBe(relative(ws, join(dirs(16, "a"), "x.md")));
    expect(target(join(outside, "at-17.txt"))).toBeNull();
  });

  it("takes a target as protected once the alias scan passes 50,000 entries, and not before", () => {
    // Scanned: the workspace root's 4 entries (non-recursive), then memory/ recursively.
    const fill = (from: number, to: number) => {
      for (let i = from; i < to; i++) writeFileSync(join(ws, "memory", `f${i}.txt`), "");
    };
    fill(0, 50_000 - 4 - 1);
    expect(target("notes.txt")).toBeNull();
    fill(50_000 - 4 - 1, 50_000 - 4);
    expect(target("notes.txt")).toEqual({ resolvedPath: join(ws, "notes.txt"), relativePath: "notes.txt" });
    // A target outside the workspace, or the workspace itself, is named by its absolute path.
    expect(target(join(outside, "x.txt"))).toEqual({ resolvedPath: join(outside, "x.txt"), relativePath: join(outside, "x.txt") });
    expect(target(".")).toEqual({ resolvedPath: ws, relativePath: ws });
  }, 120_000);

  it("returns null for hostile non-string and NUL-bearing input, without touching the file system", () => {
    for (const raw of [42, null, undefined, { toString: () => "SOUL.md" }, ["SOUL.md"]]) {
      expect(protectedMemoryTarget(ws, raw as unknown as string), String(raw)).toBeNull();
    }
    expect(target("SOUL.md\0")).toBeNull();
    expect(target("\0")).toBeNull();
  });
});
