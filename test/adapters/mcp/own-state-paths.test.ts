import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join, relative } from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { OwnStatePaths } from "../../../src/adapters/mcp/own-state-paths.js";

const root = mkdtempSync(join(tmpdir(), "provenant-own-state-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("OwnStatePaths", () => {
  const state = join(root, "ws", ".provenance");
  mkdirSync(state, { recursive: true });
  const check = new OwnStatePaths(state, join(root, "files"));

  it("finds the state directory however the path is written, nested anywhere in the arguments", () => {
    expect(check.named({ path: join(state, "approvals", "answers", "0123abcd.json") })).not.toBeNull();
    expect(check.named({ path: state })).not.toBeNull();
    expect(check.named({ path: join(root, "files", "..", "ws", ".provenance", "watermarks.json") })).not.toBeNull();
    expect(check.named({ path: join("..", "ws", ".provenance", "x") })).not.toBeNull();
    expect(check.named({ edits: [{ target: { path: `${state}/approvals/watchers/1.json` } }] })).not.toBeNull();
    expect(check.named({ paths: ["/etc/hosts", join(state, "ledger")] })).toBe(join(state, "ledger"));
  });

  it("leaves other paths, prefixes that only look alike, and plain text alone", () => {
    expect(check.named({ path: join(root, "ws", ".provenance-old", "x") })).toBeNull();
    expect(check.named({ path: join(root, "ws") })).toBeNull();
    expect(check.named({ text: "see .provenance in the docs", n: 3, ok: true, nothing: null })).toBeNull();
  });

  it("compares with the state as it resolves on disk too (the workspace reached through a link)", () => {
    const link = join(root, "link-ws");
    symlinkSync(join(root, "ws"), link);
    const viaLink = new OwnStatePaths(join(link, ".provenance"));
    expect(viaLink.named({ path: join(state, "approvals") })).not.toBeNull();
    expect(viaLink.named({ path: join(link, ".provenance", "approvals") })).not.toBeNull();
  });

  it("follows a symbolic link on the path into the state, as the server's open would", () => {
    const files = join(root, "served");
    mkdirSync(files);
    symlinkSync(state, join(files, "cache")); // a link a cloned repository brings along
    symlinkSync(join(root, "ws"), join(files, "up"));
    symlinkSync("../ws/.provenance/approvals", join(files, "rel"));
    symlinkSync("loop-b", join(files, "loop-a"));
    symlinkSync("loop-a", join(files, "loop-b"));
    const served = new OwnStatePaths(state, files);
    expect(served.named({ path: "cache/approvals/answers/0123abcd.json" })).toBe("cache/approvals/answers/0123abcd.json");
    expect(served.named({ path: join(files, "up", ".provenance", "watermarks.json") })).not.toBeNull();
    expect(served.named({ path: "rel/watchers/1.json" })).not.toBeNull();
    expect(served.named({ path: "rel/../../notes.txt" })).toBeNull(); // the kernel climbs from the link's target: ws/notes.txt
    expect(served.named({ path: join(files, "up", "notes.txt") })).toBeNull();
    expect(served.named({ path: "loop-a/x" })).toBeNull(); // the kernel opens nothing there
    symlinkSync(join(state, "approvals", "answers", "0123abcd.json"), join(files, "answer")); // dangling: a write creates it
    expect(served.named({ path: "answer" })).toBe("answer");
    expect(served.named({ note: "see the cache" })).toBeNull();
  });

  it("reads ~/ as the home directory", () => {
    const inHome = new OwnStatePaths(join(homedir(), ".local", "state", "provenant", ".provenance"));
    expect(inHome.named({ path: "~/.local/state/provenant/.provenance/approvals/answers/x.json" })).not.toBeNull();
    expect(inHome.named({ path: `~/${relative(homedir(), join(homedir(), "notes.txt"))}` })).toBeNull();
  });

  it("fuzz: any arguments give an answer, never a throw", () => {
    fc.assert(fc.property(fc.jsonValue({ maxDepth: 20 }), (args) => void check.named(args)), { numRuns: 500 });
    let deep: unknown = join(state, "x");
    for (let i = 0; i < 100; i++) deep = [deep];
    // Too deep to read is refused, not waved through.
    expect(check.named(deep)).toMatch(/nested deeper than 64 levels/);
  });
});
