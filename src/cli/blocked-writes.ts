import type { Command } from "commander";
import { BlockedWriteError, BlockedWriteStore } from "../state/blocked-write-store.js";
import type { StagedWrite } from "../state/blocked-write-store.js";
import { displayBlock, displayJson, displayText } from "../core/safe-display.js";
import { AGENT_WORKSPACE_HELP, existingWorkspace, processWorkspaceIo, type WorkspaceCommandIo } from "./agent-workspace.js";

interface CommonOptions {
  readonly workspace?: string;
  readonly json?: boolean;
  /** Print staged content, paths and ids exactly as stored, control characters and all. */
  readonly raw?: boolean;
}

/**
 * How text from a staged write reaches the terminal: escaped so that nothing in it can hide,
 * recolour or reorder what the owner reviews, unless `--raw` asks for the bytes.
 */
interface Renderer {
  readonly line: (text: string) => string;
  readonly block: (text: string) => string;
  readonly json: (value: unknown) => string;
}

const SAFE: Renderer = { line: displayText, block: displayBlock, json: (v) => displayJson(v, 2) };
const RAW: Renderer = { line: (t) => t, block: (t) => t, json: (v) => JSON.stringify(v, null, 2) };
const rendererFor = (opts: CommonOptions): Renderer => (opts.raw === true ? RAW : SAFE);

function summary(w: StagedWrite): Omit<StagedWrite, "content"> & { readonly contentBytes: number } {
  const { content, ...rest } = w;
  return { ...rest, contentBytes: Buffer.byteLength(content, "utf8") };
}

function describe(w: StagedWrite, r: Renderer): string[] {
  const lines = [
    `id:         ${r.line(w.id)}`,
    `created:    ${r.line(w.createdAt)}`,
    `session:    ${r.line(w.sessionId)}`,
    `tool:       ${r.line(w.tool)} (${w.operation})`,
    `target:     ${r.line(w.targetPath)}`,
    `resolved:   ${r.line(w.resolvedPath)}`,
    `taint:      ${w.taint}`,
    `reason:     ${r.line(w.reason)}`,
    `base:       ${w.baseSha256 ?? "(file did not exist)"}`,
  ];
  for (const [i, e] of (w.edits ?? []).entries()) {
    lines.push(`edit ${i + 1}:${e.replaceAll === true ? " (replace all)" : ""}`, `--- old`, r.block(e.oldText), `+++ new`, r.block(e.newText));
  }
  const escaped = r === SAFE && displayBlock(w.content) !== w.content ? "; control and bidi characters shown escaped, --raw for the bytes" : "";
  lines.push(`--- content (${Buffer.byteLength(w.content, "utf8")} bytes${escaped}) ---`, r.block(w.content));
  return lines;
}

/** Exit status: 2 for an id that is not one, 1 for anything else that went wrong. */
function fail(io: WorkspaceCommandIo, command: string, error: unknown): number {
  io.err(`provenant blocked-writes ${command}: ${displayBlock(error instanceof Error ? error.message : String(error))}`);
  return error instanceof BlockedWriteError && error.code === "invalid-id" ? 2 : 1;
}

function openStore(io: WorkspaceCommandIo, opts: CommonOptions): BlockedWriteStore {
  return new BlockedWriteStore(existingWorkspace(opts.workspace, { cwd: io.cwd, env: io.env ?? process.env }));
}

export function listCommand(io: WorkspaceCommandIo, opts: CommonOptions): number {
  try {
    const store = openStore(io, opts);
    const writes = store.list();
    const unreadable = store.unreadable();
    const r = rendererFor(opts);
    if (opts.json === true) {
      io.out(r.json({ writes: writes.map(summary), unreadable }));
    } else if (writes.length === 0 && unreadable.length === 0) {
      io.out(`No blocked writes in ${r.line(store.dir)}`);
    } else {
      io.out(`${writes.length} blocked write${writes.length === 1 ? "" : "s"} in ${r.line(store.dir)}`);
      for (const w of writes) {
        io.out(
          `${r.line(w.id)}  ${r.line(w.createdAt)}  ${w.taint.padEnd(9)}  ${w.operation.padEnd(5)}  ${r.line(w.targetPath)}  (session ${r.line(w.sessionId)}, ${Buffer.byteLength(w.content, "utf8")} bytes)`,
        );
      }
      for (const u of unreadable) io.out(`unreadable: ${r.line(u.file)}: ${r.line(u.error)}`);
    }
    return unreadable.length === 0 ? 0 : 1;
  } catch (error) {
    return fail(io, "list", error);
  }
}

export function showCommand(io: WorkspaceCommandIo, id: string, opts: CommonOptions): number {
  try {
    const store = openStore(io, opts);
    const staged = store.get(store.resolveId(id));
    const r = rendererFor(opts);
    if (opts.json === true) io.out(r.json(staged));
    else for (const line of describe(staged, r)) io.out(line);
    return 0;
  } catch (error) {
    return fail(io, "show", error);
  }
}

export function commitCommand(io: WorkspaceCommandIo, id: string, opts: CommonOptions & { readonly force?: boolean }): number {
  try {
    const store = openStore(io, opts);
    const result = store.commit(store.resolveId(id), { force: opts.force === true });
    const r = rendererFor(opts);
    if (opts.json === true) {
      io.out(r.json({ committed: summary(result.staged), alreadyApplied: result.alreadyApplied, labelsCleared: result.labelsCleared }));
      return 0;
    }
    if (result.alreadyApplied) io.out(`${r.line(result.staged.resolvedPath)} already held the staged content; removed blocked write ${r.line(result.staged.id)}`);
    else io.out(`Committed blocked write ${r.line(result.staged.id)} to ${r.line(result.staged.resolvedPath)}`);
    if (result.labelsCleared.length > 0) io.out(`It replaced content a tainted write had left there: the file is trusted again (label removed).`);
    return 0;
  } catch (error) {
    return fail(io, "commit", error);
  }
}

export function discardCommand(io: WorkspaceCommandIo, id: string, opts: CommonOptions): number {
  try {
    const store = openStore(io, opts);
    const full = store.resolveId(id);
    const staged = store.discard(full);
    const r = rendererFor(opts);
    if (opts.json === true) io.out(r.json({ discarded: full, write: staged === null ? null : summary(staged) }));
    else io.out(`Discarded blocked write ${r.line(full)}${staged === null ? " (unreadable)" : ` for ${r.line(staged.targetPath)}`}`);
    return 0;
  } catch (error) {
    return fail(io, "discard", error);
  }
}

/** `provenant blocked-writes ...`: review the memory-file writes that taint kept from running. */
export function registerBlockedWritesCommands(program: Command, io: () => WorkspaceCommandIo = processWorkspaceIo): void {
  const run = (code: number): void => {
    if (code !== 0) process.exitCode = code;
  };
  const group = program
    .command("blocked-writes")
    .description("Review, commit or discard writes to memory files that were staged because the session was tainted.");
  const common = (cmd: Command): Command =>
    cmd
      .option("--workspace <dir>", AGENT_WORKSPACE_HELP)
      .option("--json", "print JSON")
      .option("--raw", "print staged content and paths exactly as stored (control characters are escaped by default)");

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
