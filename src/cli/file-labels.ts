import type { Command } from "commander";
import { resolve } from "node:path";
import { OPEN, runningText } from "../core/change-windows.js";
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
        const from = new Date(w.since).toISOString();
        const running = runningText(w.running ?? []);
        const span = w.until !== OPEN ? `${from} to ${new Date(w.until).toISOString()}` : running === "" ? `${from} on, held open for good` : `${from} on, while ${running} ${w.running!.length === 1 ? "runs" : "run"}`;
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

export function closeWindowsCommand(io: WorkspaceCommandIo, opts: Options): number {
  try {
    const closed = openLabels(io, opts).closeOpenWindows();
    if (opts.json === true) io.out(displayJson({ closed }, 2));
    else if (closed === 0) io.out("No change window is open.");
    else io.out(`Closed ${closed} open change ${closed === 1 ? "window" : "windows"} now: a file changed from now on is not read at ${closed === 1 ? "its" : "their"} level.`);
    return 0;
  } catch (error) {
    return fail(io, "close", error);
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
  common(
    group
      .command("close")
      .description(
        "Close the change windows that processes a command left running keep open, now: the owner's word that they write nothing more (stop them first). What changed until now stays in the windows.",
      ),
  ).action((opts: Options) => run(closeWindowsCommand(io(), opts)));
}
