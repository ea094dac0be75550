import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { MAX_HELD_LISTED, ToolPinStore } from "../../src/state/tool-pin-store.js";

const d = (c: string) => c.repeat(64);
const T = new Date("2026-11-23T12:00:00Z");

const dirs: string[] = [];
const made = (dir: string): string => {
  dirs.push(dir);
  return dir;
};
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe("ToolPinStore", () => {
  it("pins the first complete listing, holds a changed definition and a late tool, and accepts them", () => {
    const ws = made(mkdtempSync(join(tmpdir(), "provenant-pins-")));
    const s = new ToolPinStore(ws, "fs");
    // Two pages of the first listing are both pinned.
    expect([...s.observe([{ name: "a", digest: d("a"), definition: { name: "a" } }], { first: true, last: false }, T)]).toEqual([]);
    expect([...s.observe([{ name: "b", digest: d("b"), definition: { name: "b" } }], { first: false, last: true }, T)]).toEqual([]);
    expect([...s.observe([{ name: "a", digest: d("c"), definition: { name: "a", description: "x" } }, { name: "constructor", digest: d("d"), definition: {} }], { first: true, last: true }, T)].sort()).toEqual(["a", "constructor"]);
    expect(s.read().held.get("a")?.previousDigest).toBe(d("a"));
    // Reverting to the pinned definition is no longer held.
    expect([...s.observe([{ name: "a", digest: d("a"), definition: { name: "a" } }], { first: true, last: true }, T)]).toEqual([]);
    expect(s.accept(["constructor"], T)).toEqual(["constructor"]);
    expect([...s.observe([{ name: "constructor", digest: d("d"), definition: {} }], { first: true, last: true }, T)]).toEqual([]);
  });

  it("ends the first listing when a listing starts over before its last page: a tool added later is held", () => {
    const ws = made(mkdtempSync(join(tmpdir(), "provenant-pins-")));
    const s = new ToolPinStore(ws, "fs");
    // A client that reads only the first page, twice; the server adds a tool to that page in between.
    expect([...s.observe([{ name: "a", digest: d("a"), definition: {} }], { first: true, last: false }, T)]).toEqual([]);
    expect([...s.observe([{ name: "a", digest: d("a"), definition: {} }, { name: "late", digest: d("b"), definition: {} }], { first: true, last: false }, T)]).toEqual(["late"]);
    expect(s.read().complete).toBe(true);
    // A first page with nothing pinned yet does not end a listing that has not begun.
    const empty = new ToolPinStore(made(mkdtempSync(join(tmpdir(), "provenant-pins-"))), "fs");
    empty.observe([], { first: true, last: false }, T);
    expect([...empty.observe([{ name: "a", digest: d("a"), definition: {} }], { first: true, last: false }, T)]).toEqual([]);
    expect(empty.read().complete).toBe(false);
  });

  it("keeps the newest 1,000 held entries of a listing, and every held tool", () => {
    const ws = made(mkdtempSync(join(tmpdir(), "provenant-pins-")));
    const entries = (from: number, count: number) => Array.from({ length: count }, (_, i) => ({ name: `r${from + i}`, digest: d("e"), definition: {} }));
    for (const kind of ["resources", "tools"] as const) {
      const s = new ToolPinStore(ws, "fs", undefined, kind);
      s.observe(entries(0, 1), { first: true, last: true }, T);
      expect(s.observe(entries(1, 900), { first: true, last: true }, new Date("2026-11-23T12:00:01Z")).size).toBe(900);
      // The next page of new entries is held too, all of it; past the bound the oldest records go.
      expect(s.observe(entries(901, 300), { first: true, last: true }, new Date("2026-11-23T12:00:02Z")).size).toBe(300);
      const held = s.read().held;
      if (kind === "tools") expect(held.size).toBe(1200);
      else {
        expect(held.size).toBe(MAX_HELD_LISTED);
        // The newest page stays whole; 200 of the older go.
        expect(entries(901, 300).every((e) => held.has(e.name))).toBe(true);
        const dropped = entries(1, 900).filter((e) => !held.has(e.name));
        expect(dropped).toHaveLength(200);
        // Dropped from the file is not pinned: listed again, it is held again.
        expect([...s.observe(dropped.slice(0, 1), { first: true, last: true }, new Date("2026-11-23T12:00:03Z"))]).toEqual([dropped[0]?.name]);
        expect(s.read().tools.has(dropped[0]?.name ?? "")).toBe(false);
      }
    }
  });

  it("holds every tool when the pin file is unusable, and keeps the bad file aside", () => {
    const ws = made(mkdtempSync(join(tmpdir(), "provenant-pins-")));
    mkdirSync(join(ws, ".provenance", "mcp-pins"), { recursive: true });
    writeFileSync(join(ws, ".provenance", "mcp-pins", "fs.json"), '{"version":1');
    const reports: string[] = [];
    const s = new ToolPinStore(ws, "fs", (detail) => reports.push(detail));
    expect([...s.observe([{ name: "a", digest: d("a"), definition: {} }], { first: true, last: true }, T)]).toEqual(["a"]);
    expect(reports).toHaveLength(1);
    expect(readdirSync(join(ws, ".provenance", "mcp-pins")).some((f) => f.includes("corrupt"))).toBe(true);
    expect(existsSync(s.file)).toBe(true);
  });
});

describe("ToolPinStore: what the owner accepts, and what a listing leaves held", () => {
  const tool = (name: string, c: string) => ({ name, digest: d(c), definition: { name, description: c } });
  const fresh = () => new ToolPinStore(made(mkdtempSync(join(tmpdir(), "provenant-pins-"))), "fs");

  it("accepting one held tool leaves the others held and hidden", () => {
    const s = fresh();
    s.observe([tool("write_file", "a"), tool("delete_all", "b")], { first: true, last: true }, T);
    s.observe([tool("write_file", "c"), tool("delete_all", "d")], { first: true, last: true }, T);
    expect(s.accept(["write_file"], T)).toEqual(["write_file"]);
    expect([...s.read().held.keys()]).toEqual(["delete_all"]);
    expect([...s.observe([tool("write_file", "c"), tool("delete_all", "d")], { first: true, last: true }, T)]).toEqual(["delete_all"]);
    expect(s.accept(["nothing-held"], T)).toEqual([]);
  });

  it("a tool back at its pin is no longer held on disk either, so accepting all later cannot pin the change", () => {
    const s = fresh();
    s.observe([tool("write_file", "a")], { first: true, last: true }, T);
    s.observe([tool("write_file", "b")], { first: true, last: true }, T);
    s.observe([tool("write_file", "a")], { first: true, last: true }, T);
    expect(new ToolPinStore(join(s.file, "..", "..", ".."), "fs").read().held.size).toBe(0);
    expect(s.accept("all", T)).toEqual([]);
    expect(s.read().tools.get("write_file")?.digest).toBe(d("a"));
  });

  it("a tool listed twice in the first listing with two definitions keeps the first as its pin and holds the second", () => {
    const s = fresh();
    expect([...s.observe([tool("a", "a")], { first: true, last: false }, T)]).toEqual([]);
    expect([...s.observe([tool("a", "b")], { first: false, last: true }, T)]).toEqual(["a"]);
    expect(s.read().tools.get("a")?.digest).toBe(d("a"));
  });

  it("a held definition keeps the time it was first seen while it does not change", () => {
    const s = fresh();
    s.observe([tool("a", "a")], { first: true, last: true }, T);
    s.observe([tool("a", "b")], { first: true, last: true }, T);
    s.observe([tool("a", "b")], { first: true, last: true }, new Date(T.getTime() + 60_000));
    expect(s.read().held.get("a")?.seenAt).toBe(T.toISOString());
  });
});

describe("ToolPinStore: one file per kind", () => {
  it("a server's tools, instructions and listings are pinned apart; accepting all takes every held tool", () => {
    const ws = made(mkdtempSync(join(tmpdir(), "provenant-pins-")));
    const tools = new ToolPinStore(ws, "fs");
    const prompts = new ToolPinStore(ws, "fs", () => undefined, "prompts");
    tools.observe([{ name: "write_file", digest: d("a"), definition: {} }], { first: true, last: true }, T);
    prompts.observe([{ name: "brief", digest: d("b"), definition: {} }], { first: true, last: true }, T);
    expect([tools.file, prompts.file].map((f) => f.slice(ws.length))).toEqual(["/.provenance/mcp-pins/fs.json", "/.provenance/mcp-pins/fs.prompts.json"]);
    expect([...tools.read().tools.keys()]).toEqual(["write_file"]);
    tools.observe([{ name: "write_file", digest: d("c"), definition: {} }, { name: "move_file", digest: d("e"), definition: {} }], { first: true, last: true }, T);
    expect(tools.accept("all", T).sort()).toEqual(["move_file", "write_file"]);
  });
});
