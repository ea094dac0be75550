import { realpathSync } from "node:fs";
import { basename, dirname, isAbsolute, join, relative, resolve } from "node:path";
import type { ResolvedConfig } from "./core/config.js";
import { execOutputTrust, execWrittenFiles, type ExecTrust } from "./core/exec-trust.js";
import { FileTrustRules } from "./core/file-trust.js";
import type { HostCatalogue } from "./core/host-catalogue.js";
import { hostPathReadings } from "./core/host-paths.js";
import { lessTrusted, minTrust, type TrustLevel } from "./core/trust-levels.js";
import { writeTargets } from "./core/write-targets.js";
import { extractPatchTargets } from "./sig/patch-targets.js";
import type { FileLabelStore } from "./state/file-label-store.js";

/**
 * The guard's reading of what a call's output is worth from what the call did (docs/engine.md
 * "Output trust from what the call did"): an `exec` from its parsed command, a file read from the
 * file's `fileTrust` rule and label, `process` from the worst `exec` of its session; and the labels
 * of files written while a turn is tainted. The rules are in core/; this joins them to the disk
 * (the workspace, symlinked directories, the label store).
 */
export class CallOutputTrust {
  private readonly fileTrust: FileTrustRules;

  constructor(
    private readonly options: {
      readonly config: Pick<ResolvedConfig, "fileTrust" | "execOutputTrust" | "execCommandTrust">;
      readonly workspaceDir: string;
      readonly home: string;
      readonly fileLabels: FileLabelStore;
      readonly catalogue: HostCatalogue;
    },
  ) {
    this.fileTrust = new FileTrustRules(options.config.fileTrust);
  }

  /**
   * The trust of this call's output, or null when what it did says nothing beyond the catalogue.
   * `session.execLevel` keeps the worst `exec` of the session, for `process`.
   */
  judge(tool: string, params: Readonly<Record<string, unknown>>, session: { execLevel: TrustLevel }): ExecTrust | null {
    const byCommand = this.options.config.execOutputTrust === "by-command";
    const { execTools, backgroundOutputTools, fileReadTools } = this.options.catalogue;
    if (execTools.has(tool) && byCommand) {
      const command = params["command"];
      // Relative paths in the command start from `workdir` when the call names one, and the
      // directory itself is read like a file (a command run inside an inbox reads the inbox).
      const workdir = workdirOf(params);
      const base = this.baseDir(workdir);
      let trust: ExecTrust =
        typeof command === "string"
          ? execOutputTrust(command, { overrides: this.options.config.execCommandTrust, fileLevel: (path) => this.fileLevel(path, base) })
          : { level: "untrusted", reason: "exec with no command string" };
      const inDir = workdir === null ? null : this.fileLevel(workdir);
      if (inDir !== null && lessTrusted(inDir.level, trust.level)) trust = inDir;
      session.execLevel = minTrust(session.execLevel, trust.level);
      return trust;
    }
    if (backgroundOutputTools.has(tool) && byCommand) {
      return { level: session.execLevel, reason: `background output of this session's commands (at ${session.execLevel})` };
    }
    if (fileReadTools.has(tool)) {
      const path = ["path", "file_path", "notebook_path"].map((key) => params[key]).find((value): value is string => typeof value === "string");
      return path === undefined ? null : this.fileLevel(path);
    }
    return null;
  }

  /**
   * A file written while the turn is tainted, or by a call whose output is tainted, is labelled with
   * that level (the caller passes the worse of the two); a whole rewrite at trusted clears it.
   */
  recordWrites(sessionId: string, taint: TrustLevel, tool: string, params: Readonly<Record<string, unknown>>, now: Date): void {
    let targets: string[];
    let base = this.options.workspaceDir;
    if (this.options.catalogue.fileWriteTools.has(tool)) targets = writeTargets(tool, params, this.options.home, extractPatchTargets);
    else if (this.options.catalogue.execTools.has(tool) && typeof params["command"] === "string") {
      targets = execWrittenFiles(params["command"]);
      base = this.baseDir(workdirOf(params));
    } else return;
    const at = now.toISOString();
    for (const target of targets) {
      for (const absolute of this.absoluteReadings(target, base)) {
        if (taint !== "trusted") this.options.fileLabels.mark(absolute, { level: taint, sessionId, tool, at });
        else if (tool === "write" || tool === "Write") this.options.fileLabels.clear(absolute);
      }
    }
  }

  /** A file's trust: the first `fileTrust` rule it matches and its label, whichever is worse; null when neither says anything. */
  fileLevel(rawPath: string, base: string = this.options.workspaceDir): ExecTrust | null {
    const labels = this.options.fileLabels;
    if (labels.unreadable !== null) return { level: "untrusted", reason: labels.unreadable };
    let worst: ExecTrust | null = null;
    for (const absolute of this.absoluteReadings(rawPath, base)) {
      const rel = relative(this.options.workspaceDir, absolute);
      const inside = rel !== "" && !rel.startsWith("..") && !isAbsolute(rel) ? rel : null;
      const label = labels.get(absolute);
      const found = [
        this.fileTrust.levelFor(inside, absolute),
        label === undefined ? null : { level: label.level, reason: `${absolute} was written by ${label.tool} at ${label.level} (${label.at})` },
      ];
      for (const f of found) if (f !== null && (worst === null || lessTrusted(f.level, worst.level))) worst = f;
    }
    return worst;
  }

  /** Where an `exec`'s relative paths start: its `workdir`, else the workspace. */
  private baseDir(workdir: string | null): string {
    if (workdir === null) return this.options.workspaceDir;
    return this.absoluteReadings(workdir, this.options.workspaceDir)[0] ?? this.options.workspaceDir;
  }

  /** The absolute paths a tool's path may name (core/host-paths.ts), with symlinks in the directory and of the file itself resolved where they exist. */
  private absoluteReadings(rawPath: string, base: string): string[] {
    const out = new Set<string>();
    for (const reading of hostPathReadings(rawPath, "tool", this.options.home)) {
      const lexical = resolve(base, reading);
      out.add(lexical);
      try {
        out.add(join(realpathSync.native(dirname(lexical)), basename(lexical)));
      } catch {
        // A directory that does not exist has no other name.
      }
      try {
        // A symbolic link is read through to its target (a link to a download is the download).
        out.add(realpathSync.native(lexical));
      } catch {
        // A file that does not exist (yet) has no other name.
      }
    }
    return [...out];
  }
}

/** OpenClaw's `exec` runs in `workdir` when given (empty means the default). */
function workdirOf(params: Readonly<Record<string, unknown>>): string | null {
  const workdir = params["workdir"];
  return typeof workdir === "string" && workdir.trim() !== "" ? workdir : null;
}
