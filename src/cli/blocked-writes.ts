import type { Command } from "commander";
import { statSync } from "node:fs";
import { BlockedWriteError, BlockedWriteStore } from "../state/blocked-write-store.js";
import type { StagedWrite } from "../state/blocked-write-store.js";
import { findWorkspace } from "./agent-workspace.js";

export interface BlockedWritesIo {
  readonly cwd: string;
  /** For finding the workspace (PROVENANT_WORKSPACE, OPENCLAW_HOME); the process's by default. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  readonly out: (line: string) => void;
  readonly err: (line: string) => void;
}

interface CommonOptions {
  readonly workspace?: string;
  readonly json?: boolean;
}

function processIo(): BlockedWritesIo {
  return {
    cwd: process.cwd(),
    out: (line) => process.stdout.write(`${line}\n`),
    err: (line) => process.stderr.write(`${line}\n`),
  };
}

function summary(w: StagedWrite): Omit<StagedWrite, "content"> & { readonly contentBytes: number } {
  const { content, ...rest } = w;
  return { ...rest, contentBytes: Buffer.byteLength(content, "utf8") };
}

function describe(w: StagedWrite): string[] {
  const lines = [
    `id:         ${w.id}`,
    `created:    ${w.createdAt}`,
    `session:    ${w.sessionId}`,
    `tool:       ${w.tool} (${w.operation})`,
    `target:     ${w.targetPath}`,
    `resolved:   ${w.resolvedPath}`,
    `taint:      ${w.taint}`,
    `reason:     ${w.reason}`,
    `base:       ${w.baseSha256 ?? "(file did not exist)"}`,
  ];
  for (const [i, e] of (w.edits ?? []).entries()) {
    lines.push(`edit ${i + 1}:${e.replaceAll === true ? " (replace all)" : ""}`, `--- old`, e.oldText, `+++ new`, e.newText);
  }
  lines.push(`--- content (${Buffer.byteLength(w.content, "utf8")} bytes) ---`, w.content);
  return lines;
}

/** Exit status: 2 for an id that is not one, 1 for anything else that went wrong. */
function fail(io: BlockedWritesIo, command: string, error: unknown): number {
  io.err(`provenant blocked-writes ${command}: ${error instanceof Error ? error.message : String(error)}`);
  return error instanceof BlockedWriteError && error.code === "invalid-id" ? 2 : 1;
}

function openStore(io: BlockedWritesIo, opts: CommonOptions): BlockedWriteStore {
  const found = findWorkspace(opts.workspace, { cwd: io.cwd, env: io.env ?? process.env });
  const workspace = found.dir;
  let isDir = false;
  try {
    isDir = statSync(workspace).isDirectory();
  } catch {
    // Reported below.
  }
  if (!isDir) throw new Error(`workspace ${workspace} (from ${found.how}) is not a directory; name it with --workspace`);
  return new BlockedWriteStore(workspace);
}

export function listCommand(io: BlockedWritesIo, opts: CommonOptions): number {
  try {
    const store = openStore(io, opts);
    const writes = store.list();
    const unreadable = store.unreadable();
    if (opts.json === true) {
      io.out(JSON.stringify({ writes: writes.map(summary), unreadable }, null, 2));
    } else if (writes.length === 0 && unreadable.length === 0) {
      io.out(`No blocked writes in ${store.dir}`);
    } else {
      io.out(`${writes.length} blocked write${writes.length === 1 ? "" : "s"} in ${store.dir}`);
      for (const w of writes) {
        io.out(`${w.id}  ${w.createdAt}  ${w.taint.padEnd(9)}  ${w.operation.padEnd(5)}  ${w.targetPath}  (session ${w.sessionId}, ${Buffer.byteLength(w.content, "utf8")} bytes)`);
      }
      for (const u of unreadable) io.out(`unreadable: ${u.file}: ${u.error}`);
    }
    return unreadable.length === 0 ? 0 : 1;
  } catch (error) {
    return fail(io, "list", error);
  }
}

export function showCommand(io: BlockedWritesIo, id: string, opts: CommonOptions): number {
  try {
    const store = openStore(io, opts);
    const staged = store.get(store.resolveId(id));
    if (opts.json === true) io.out(JSON.stringify(staged, null, 2));
    else for (const line of describe(staged)) io.out(line);
    return 0;
  } catch (error) {
    return fail(io, "show", error);
  }
}

export function commitCommand(io: BlockedWritesIo, id: string, opts: CommonOptions & { readonly force?: boolean }): number {
  try {
    const store = openStore(io, opts);
    const result = store.commit(store.resolveId(id), { force: opts.force === true });
    if (opts.json === true) io.out(JSON.stringify({ committed: summary(result.staged), alreadyApplied: result.alreadyApplied }, null, 2));
    else if (result.alreadyApplied) io.out(`${result.staged.resolvedPath} already held the staged content; removed blocked write ${result.staged.id}`);
    else io.out(`Committed blocked write ${result.staged.id} to ${result.staged.resolvedPath}`);
    return 0;
  } catch (error) {
    return fail(io, "commit", error);
  }
}

export function discardCommand(io: BlockedWritesIo, id: string, opts: CommonOptions): number {
  try {
    const store = openStore(io, opts);
    const full = store.resolveId(id);
    const staged = store.discard(full);
    if (opts.json === true) io.out(JSON.stringify({ discarded: full, write: staged === null ? null : summary(staged) }, null, 2));
    else io.out(`Discarded blocked write ${full}${staged === null ? " (unreadable)" : ` for ${staged.targetPath}`}`);
    return 0;
  } catch (error) {
    return fail(io, "discard", error);
  }
}

/** `provenant blocked-writes ...`: review the memory-file writes that taint kept from running. */
export function registerBlockedWritesCommands(program: Command, io: () => BlockedWritesIo = processIo): void {
  const run = (code: number): void => {
    if (code !== 0) process.exitCode = code;
  };
  const group = program
    .command("blocked-writes")
    .description("Review, commit or discard writes to memory files that were staged because the session was tainted.");
  const common = (cmd: Command): Command =>
    cmd.option("--workspace <dir>", "the agent's workspace (default: found from PROVENANT_WORKSPACE, a .provenance/ here or above, or OpenClaw's configuration)").option("--json", "print JSON");

  common(group.command("list").description("List staged writes, oldest first.")).action((opts: CommonOptions) => run(listCommand(io(), opts)));
  common(group.command("show").description("Show a staged write and its full content.").argument("<id>", "id or a unique prefix (6+ hex digits)")).action(
    (id: string, opts: CommonOptions) => run(showCommand(io(), id, opts)),
  );
  common(
    group
      .command("commit")
      .description("Write the staged content to its target, then remove the staged write.")
      .argument("<id>", "id or a unique prefix (6+ hex digits)")
      .option("--force", "write even if the target changed or now resolves elsewhere since staging"),
  ).action((id: string, opts: CommonOptions & { force?: boolean }) => run(commitCommand(io(), id, opts)));
  common(group.command("discard").description("Delete a staged write without applying it.").argument("<id>", "id or a unique prefix (6+ hex digits)")).action(
    (id: string, opts: CommonOptions) => run(discardCommand(io(), id, opts)),
  );
}
