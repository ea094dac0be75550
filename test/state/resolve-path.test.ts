import { afterEach, beforeEach, describe, expect, it } from "vitest";
import fc from "fast-check";
import { linkSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join, relative, resolve } from "node:path";
import { memoryFileMatcher } from "../../src/core/memory-files.js";
import { PathResolutionError, protectedMemoryTarget } from "../../src/state/resolve-path.js";

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

  it("survives fuzzed path tricks and agrees with a plain resolution", () => {
    symlinkSync(join(ws, "memory"), join(ws, "docs", "mem"));
    symlinkSync(ws, join(outside, "back"));
    const segment = fc.constantFrom(".", "..", "docs", "memory", "mem", "SOUL.md", "soul.MD", "day.md", "x", "", "\u0405OUL.md", "~");
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
          expect(hit.resolvedPath.startsWith(ws + "/")).toBe(true);
          expect(hit.relativePath.startsWith("..")).toBe(false);
        }
        // Oracle: whatever plain path.resolve puts on a protected name must be caught.
        const plain = relative(ws, resolve(ws, raw));
        if (!raw.startsWith("~") && plain !== "" && !plain.startsWith("..") && oracle.matches(plain)) expect(hit, raw).not.toBeNull();
      }),
      { numRuns: 1500 },
    );
  });
});
