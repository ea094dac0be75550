import { mkdirSync, symlinkSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { RealPathResolver } from "../../src/sig/real-path.js";
import { ProjectFixture } from "./project-fixture.js";

/**
 * Where the mutation gate thinks a write lands (RealPathResolver), checked path by path: a reading
 * that is wrong in either direction either blocks a harmless write or lets a protected file go.
 */
let fixture: ProjectFixture;
beforeEach(() => {
  fixture = new ProjectFixture();
  fixture.write("soul.md", "soul\n");
  mkdirSync(fixture.path("llm/prompts"), { recursive: true });
});
afterEach(() => fixture.remove());

const resolver = (caseInsensitive = false) => new RealPathResolver(fixture.root, { caseInsensitive, homeDir: dirname(fixture.root) });

describe("RealPathResolver", () => {
  it("`~` alone is the home directory, outside the project; `~name` is a relative name", () => {
    expect(resolver().resolve("~")).toEqual({ kind: "outside", real: dirname(fixture.root) });
    expect(resolver().resolve("~soul.md")).toEqual({ kind: "inside", path: "~soul.md", real: fixture.path("~soul.md") });
  });

  it("the project root itself, its parent and what lies beside it are outside; a name that starts with `..` is inside", () => {
    expect(resolver().resolve(".")).toEqual({ kind: "outside", real: fixture.root });
    expect(resolver().resolve("..")).toEqual({ kind: "outside", real: dirname(fixture.root) });
    expect(resolver().resolve("../x.md")).toEqual({ kind: "outside", real: join(dirname(fixture.root), "x.md") });
    expect(resolver().resolve("..soul.md")).toEqual({ kind: "inside", path: "..soul.md", real: fixture.path("..soul.md") });
    expect(resolver().resolve("notes/..md")).toEqual({ kind: "inside", path: "notes/..md", real: fixture.path("notes/..md") });
  });

  it("an empty path, a NUL byte and a malformed file URL are unresolvable, each with its reason", () => {
    expect(resolver().resolve("")).toEqual({ kind: "unresolvable", reason: "empty path" });
    expect(resolver().resolve("soul.md\0")).toEqual({ kind: "unresolvable", reason: "path contains a NUL byte" });
    expect(resolver().resolve("file://remote-host/soul.md")).toEqual({ kind: "unresolvable", reason: "malformed file URL" });
  });

  it("a new file under a symlinked directory lands where the link points", () => {
    symlinkSync(fixture.path("llm/prompts"), fixture.path("shortcut"));
    expect(resolver().resolve("shortcut/new.txt")).toEqual({ kind: "inside", path: "llm/prompts/new.txt", real: fixture.path("llm/prompts/new.txt") });
    expect(resolver().resolve("shortcut/missing/deeper/new.txt")).toMatchObject({ kind: "inside", path: "llm/prompts/missing/deeper/new.txt" });
  });

  it("a name the kernel refuses (a component over 255 bytes) is unresolvable, not guessed", () => {
    const long = "a".repeat(300);
    expect(resolver().resolve(`${long}/soul.md`)).toEqual({ kind: "unresolvable", reason: "cannot resolve path (ENAMETOOLONG)" });
  });

  it("walks at most 256 steps: 255 missing directories resolve, 256 do not", () => {
    const missing = (n: number) => `${Array.from({ length: n }, () => "d").join("/")}/f`;
    expect(resolver().resolve(missing(254))).toMatchObject({ kind: "inside", path: missing(254) });
    expect(resolver().resolve(missing(255))).toEqual({ kind: "unresolvable", reason: "too many symbolic links or path components" });
  });

  it("on a case-insensitive file system a root spelled in another case is still the root", () => {
    const swapped = fixture.root.replace(/[a-z]/g, (c) => c.toUpperCase());
    expect(resolver(true).resolve(`${swapped}/SOUL.md`)).toMatchObject({ kind: "inside", path: "soul.md" });
    // Case-sensitive: another directory altogether.
    expect(resolver(false).resolve(`${swapped}/SOUL.md`)).toMatchObject({ kind: "outside" });
  });

  it("probes the file system for case when not told: this one tells SOUL.md from soul.md", () => {
    expect(new RealPathResolver(fixture.root).caseInsensitive).toBe(false);
  });

  it("a hard link is found only among the candidates, by inode and device", () => {
    const r = resolver();
    expect(r.findHardLinkAlias(fixture.path("soul.md"), () => ["soul.md"])).toBeUndefined(); // one link only
    expect(r.findHardLinkAlias(fixture.path("missing.md"), () => ["soul.md"])).toBeUndefined();
  });
});
