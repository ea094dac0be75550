import { execFileSync } from "node:child_process";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { findWorkspace } from "../../src/cli/agent-workspace.js";
import { listCommand } from "../../src/cli/blocked-writes.js";
import { BlockedWriteStore } from "../../src/state/blocked-write-store.js";
import { tempDir } from "../temp-dirs.js";

function fixture(): { root: string; home: string; elsewhere: string } {
  const root = tempDir("provenant-ws-");
  const home = join(root, "home");
  const elsewhere = join(root, "elsewhere");
  mkdirSync(join(home, ".openclaw"), { recursive: true });
  mkdirSync(elsewhere);
  return { root, home, elsewhere };
}

describe("the CLI finds the agent's workspace by itself", () => {
  it("prefers --workspace, then PROVENANT_WORKSPACE", () => {
    const { elsewhere, home } = fixture();
    expect(findWorkspace("ws", { cwd: elsewhere, env: { PROVENANT_WORKSPACE: "/x" }, home })).toEqual({ dir: join(elsewhere, "ws"), how: "--workspace" });
    expect(findWorkspace(undefined, { cwd: elsewhere, env: { PROVENANT_WORKSPACE: "/x" }, home }).dir).toBe("/x");
  });

  it("finds provenant's state in the current directory or above it", () => {
    const { root, home } = fixture();
    const ws = join(root, "ws");
    mkdirSync(join(ws, ".provenance"), { recursive: true });
    mkdirSync(join(ws, "notes", "deep"), { recursive: true });
    expect(findWorkspace(undefined, { cwd: join(ws, "notes", "deep"), env: {}, home }).dir).toBe(ws);
  });

  it("reads OpenClaw's configuration: provenant's workspaceDir, then agents.defaults.workspace (~ expanded), then the default", () => {
    const { elsewhere, home } = fixture();
    const config = join(home, ".openclaw", "openclaw.json");
    const env = { OPENCLAW_HOME: home };
    expect(findWorkspace(undefined, { cwd: elsewhere, env, home }).how).toBe("the current directory");
    mkdirSync(join(home, ".openclaw", "workspace"));
    expect(findWorkspace(undefined, { cwd: elsewhere, env, home }).dir).toBe(join(home, ".openclaw", "workspace"));
    writeFileSync(config, JSON.stringify({ agents: { defaults: { workspace: "~/agent-ws" } } }));
    expect(findWorkspace(undefined, { cwd: elsewhere, env, home }).dir).toBe(join(home, "agent-ws"));
    writeFileSync(config, JSON.stringify({ agents: { defaults: { workspace: "/a" } }, plugins: { entries: { provenant: { config: { workspaceDir: "/p" } } } } }));
    expect(findWorkspace(undefined, { cwd: elsewhere, env, home }).dir).toBe("/p");
    writeFileSync(config, "{ not json");
    expect(findWorkspace(undefined, { cwd: elsewhere, env, home }).dir).toBe(join(home, ".openclaw", "workspace"));
    // A FIFO where the configuration was is not waited on: it names no workspace.
    rmSync(config);
    execFileSync("mkfifo", [config]);
    expect(findWorkspace(undefined, { cwd: elsewhere, env, home }).dir).toBe(join(home, ".openclaw", "workspace"));
  });

  it("blocked-writes list works from anywhere, without --workspace", () => {
    const { elsewhere, home } = fixture();
    const ws = join(home, "agent-ws");
    mkdirSync(ws);
    writeFileSync(join(home, ".openclaw", "openclaw.json"), JSON.stringify({ agents: { defaults: { workspace: ws } } }));
    writeFileSync(join(ws, "SOUL.md"), "old\n");
    new BlockedWriteStore(ws).stage({ sessionId: "s", tool: "write", operation: "write", content: "new\n", targetPath: "SOUL.md", resolvedPath: join(ws, "SOUL.md"), taint: "untrusted", reason: "test", now: new Date(0) });
    const out: string[] = [];
    const code = listCommand({ cwd: elsewhere, env: { OPENCLAW_HOME: home }, out: (l) => out.push(l), err: (l) => out.push(l) }, {});
    expect(code).toBe(0);
    expect(out[0]).toBe(`1 blocked write in ${join(ws, ".provenance", "blocked-writes")}`);
  });
});
