import type { Command } from "commander";
import { resolve } from "node:path";
import { displayJson, displayText } from "../core/safe-display.js";
import { WorkspaceFileLabelStore } from "../state/file-label-store.js";
import { AGENT_WORKSPACE_HELP, existingWorkspace, processWorkspaceIo, type WorkspaceCommandIo } from "./agent-workspace.js";

interface Options {
  readonly workspace?: string;
  readonly json?: boolean;
}

/** The workspace's labels; an unreadable label file is an error here, not an empty list. */
function openLabels(io: WorkspaceCommandIo, opts: Options): WorkspaceFileLabelStore {
  const labels = new WorkspaceFileLabelStore(existingWorkspace(opts.workspace, { cwd: io.cwd, env: io.env ?? process.env }));
  if (labels.unreadable !== null) throw new Error(`${labels.unreadable}; until then every file the agent reads counts as untrusted`);
  return labels;
}

function fail(io: WorkspaceCommandIo, command: string, error: unknown): number {
  io.err(`provenant labels ${command}: ${displayText(error instanceof Error ? error.message : String(error))}`);
  return 1;
}

export function listLabelsCommand(io: WorkspaceCommandIo, opts: Options): number {
  try {
    const labels = openLabels(io, opts);
    const entries = labels.entries();
    const windows = labels.windows();
    if (opts.json === true) io.out(displayJson({ labels: entries.map(([path, label]) => ({ path, ...label })), windows }, 2));
    else if (entries.length === 0 && windows.length === 0) io.out("No file carries a label: nothing written under taint is on record.");
    else {
      for (const [path, label] of entries) io.out(`${label.level.padEnd(9)}  ${displayText(label.at)}  ${displayText(label.tool)}  ${displayText(path)}  (session ${displayText(label.sessionId)})`);
      for (const w of windows) {
        const span = `${new Date(w.since).toISOString()} to ${new Date(w.until).toISOString()}`;
        io.out(`${w.level.padEnd(9)}  ${displayText(w.at)}  ${displayText(w.tool)}  any file made or changed from ${span}  (session ${displayText(w.sessionId)})`);
      }
    }
    return 0;
  } catch (error) {
    return fail(io, "list", error);
  }
}

export function clearLabelCommand(io: WorkspaceCommandIo, path: string, opts: Options): number {
  try {
    const gone = openLabels(io, opts).vouchFor(resolve(io.cwd, path));
    if (gone.length === 0) throw new Error(`no label names ${resolve(io.cwd, path)} (see provenant labels list)`);
    if (opts.json === true) io.out(displayJson({ cleared: gone }, 2));
    else for (const p of gone) io.out(`Cleared the label of ${displayText(p)}: it is read as trusted from the agent's next turn.`);
    return 0;
  } catch (error) {
    return fail(io, "clear", error);
  }
}

/** `provenant labels ...`: the files content written under taint went to, and the owner's word on them. */
export function registerFileLabelCommands(program: Command, io: () => WorkspaceCommandIo = processWorkspaceIo): void {
  const run = (code: number): void => {
    if (code !== 0) process.exitCode = code;
  };
  const group = program
    .command("labels")
    .description(
      "Files that content written under taint went to, and when commands ran that may have written anywhere: each is read back at the label's trust until the owner clears it.",
    );
  const common = (cmd: Command): Command =>
    cmd
      .option("--workspace <dir>", AGENT_WORKSPACE_HELP)
      .option("--json", "print JSON");
  common(group.command("list").description("List the labelled files.")).action((opts: Options) => run(listLabelsCommand(io(), opts)));
  common(
    group
      .command("clear")
      .description("Vouch for a file's content as it is now, after reading it: its label goes, and the agent reads it as trusted again.")
      .argument("<path>", "the file (relative to the current directory)"),
  ).action((path: string, opts: Options) => run(clearLabelCommand(io(), path, opts)));
}
