import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BlockedWriteStore } from "../../src/state/blocked-write-store.js";
import type { StagedWrite } from "../../src/state/blocked-write-store.js";
import { CLI_MAIN } from "../cli/run-cli.js";

let ws: string;
let staged: StagedWrite;

function cli(...args: string[]): { code: number | null; out: string; err: string } {
  const r = spawnSync(process.execPath, [CLI_MAIN, "blocked-writes", ...args], { cwd: ws, encoding: "utf8" });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

beforeEach(() => {
  ws = realpathSync(mkdtempSync(join(tmpdir(), "provenant-bwcli-")));
  writeFileSync(join(ws, "MEMORY.md"), "old\n");
  staged = new BlockedWriteStore(ws).stage({
    sessionId: "session:cli",
    tool: "write",
    operation: "write",
    targetPath: "MEMORY.md",
    resolvedPath: join(ws, "MEMORY.md"),
    content: "new memory\n",
    taint: "untrusted",
    reason: "web_fetch response",
    now: new Date("2026-02-10T20:15:00.000Z"),
  });
});

afterEach(() => rmSync(ws, { recursive: true, force: true }));

describe("provenant blocked-writes", () => {
  it("lists, in text and JSON", () => {
    const text = cli("list");
    expect(text.code).toBe(0);
    expect(text.out).toContain("1 blocked write in");
    expect(text.out).toContain(`${staged.id}  2026-02-10T20:15:00.000Z  untrusted  write  MEMORY.md  (session session:cli, 11 bytes)`);
    const json = cli("list", "--json", "--workspace", ws);
    expect(json.code).toBe(0);
    const parsed = JSON.parse(json.out);
    expect(parsed.writes[0]).toMatchObject({ id: staged.id, contentBytes: 11, targetPath: "MEMORY.md" });
    expect(parsed.writes[0].content).toBeUndefined();
    expect(parsed.unreadable).toEqual([]);
  });

  it("shows the full content, by a unique prefix too", () => {
    const text = cli("show", staged.id.slice(0, 8));
    expect(text.code).toBe(0);
    expect(text.out).toContain("reason:     web_fetch response");
    expect(text.out).toContain("--- content (11 bytes) ---\nnew memory\n");
    expect(JSON.parse(cli("show", staged.id, "--json").out)).toEqual(staged);
  });

  it("commits and discards", () => {
    const commit = cli("commit", staged.id);
    expect(commit.code).toBe(0);
    expect(commit.out).toContain(`Committed blocked write ${staged.id} to ${join(ws, "MEMORY.md")}`);
    expect(readFileSync(join(ws, "MEMORY.md"), "utf8")).toBe("new memory\n");
    expect(cli("list").out).toContain("No blocked writes");
    const again = new BlockedWriteStore(ws).stage({ ...staged, operation: "write", now: new Date() });
    const discard = cli("discard", again.id, "--json");
    expect(discard.code).toBe(0);
    expect(JSON.parse(discard.out).discarded).toBe(again.id);
  });

  it("fails precisely with a non-zero exit", () => {
    const traversal = cli("show", "../../etc/passwd");
    expect(traversal.code).toBe(2);
    expect(traversal.err).toContain('provenant blocked-writes show: invalid blocked-write id "../../etc/passwd"');
    expect(traversal.out).toBe("");
    const missing = cli("commit", "abcdef".repeat(5) + "ab");
    expect(missing.code).toBe(1);
    expect(missing.err).toMatch(/no blocked write with id/);
    const noWorkspace = cli("list", "--workspace", join(ws, "nope"));
    expect(noWorkspace.code).toBe(1);
    expect(noWorkspace.err).toMatch(/is not a directory/);
    expect(cli("frobnicate").code).not.toBe(0);
  });

  it("refuses a changed edit target and commits with --force", () => {
    writeFileSync(join(ws, "SOUL.md"), "be kind\n");
    const edit = new BlockedWriteStore(ws).stage({
      sessionId: "s",
      tool: "edit",
      operation: "edit",
      targetPath: "SOUL.md",
      resolvedPath: join(ws, "SOUL.md"),
      edits: [{ oldText: "kind", newText: "cruel" }],
      taint: "external",
      reason: "email",
      now: new Date(),
    });
    writeFileSync(join(ws, "SOUL.md"), "be kind, always\n");
    const refused = cli("commit", edit.id);
    expect(refused.code).toBe(1);
    expect(refused.err).toContain("changed since the edit was staged");
    expect(cli("commit", edit.id, "--force").code).toBe(0);
    expect(readFileSync(join(ws, "SOUL.md"), "utf8")).toBe("be cruel\n");
  });
});
