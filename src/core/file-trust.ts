import { extname } from "node:path";
import picomatch from "picomatch";
import type { TrustLevel } from "./trust-levels.js";

/**
 * Where files hold content other people wrote: what a browser downloaded, mail and its
 * attachments, anything under an inbox, enter the context `untrusted`, however trusted the tool
 * that read it. Installed and vendored packages (a dependency's README or source) are `external`:
 * known third parties, whose text still must not steer a command. Matching ignores case and sees
 * dot-directories.
 */
export const DEFAULT_FILE_TRUST: Readonly<Record<string, TrustLevel>> = Object.freeze({
  "**/Downloads/**": "untrusted",
  "**/inbox/**": "untrusted",
  "**/mail/**": "untrusted",
  "**/Maildir/**": "untrusted",
  "**/.mail/**": "untrusted",
  // Thunderbird keeps an IMAP account's folders under its profile's `ImapMail/` (local folders
  // under `Mail/`, matched above).
  "**/ImapMail/**": "untrusted",
  "**/email/**": "untrusted",
  "**/emails/**": "untrusted",
  "**/attachments/**": "untrusted",
  // OpenClaw's store of files that arrive on its channels (`~/.openclaw/media/inbound/`) and the
  // copies it stages into the agent's workspace for reading (`media/inbound/openclaw-staged-*/`);
  // beside them in its media store, what others wrote: files and trees fetched from a paired node
  // (`tool-file-transfer/`, unpacked there for the agent to read), the browser's files, media a
  // message fetched from a URL (`outbound/`).
  "**/media/inbound/**": "untrusted",
  "**/.openclaw/media/**": "untrusted",
  // The whole page OpenClaw's web_fetch shows only the start of (`spill.path` in its result),
  // saved in the temporary directory: a web page, whichever agent's workspace it is read from.
  "**/openclaw-web-fetch-*.log": "untrusted",
  // OpenClaw's own log (`/tmp/openclaw/openclaw-<date>.log`, its rotations `…-<date>.1.log`, a
  // profile's `openclaw-<profile>-<date>.log`, and the user-scoped temporary directory it falls back
  // to): every session's failures are in it, a failed fetch's error with the page's body, a failed
  // call's arguments as the model wrote them. A `logging.file` the owner configured is the host's too
  // (HostFiles.logFiles). Logs of the machine hold what anyone who reached it sent: request lines, user
  // agents, the names a failed login tried.
  "**/openclaw-*[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]{,.+([0-9])}.log": "untrusted",
  // The rest of OpenClaw's temporary directory (`/tmp/openclaw`, or the user-scoped `openclaw-<uid>`
  // it falls back to in the system's temporary directory) holds what its tools brought in: the
  // browser's traces (at any name the model picks there), screenshots and downloads, captured
  // snapshots, staged uploads. None of it is the owner's writing.
  "/tmp/openclaw{,-+([0-9])}/**": "untrusted",
  "/private/tmp/openclaw{,-+([0-9])}/**": "untrusted",
  "/var/folders/*/*/T/openclaw-+([0-9])/**": "untrusted",
  "/private/var/folders/*/*/T/openclaw-+([0-9])/**": "untrusted",
  "/var/log/**": "untrusted",
  "/private/var/log/**": "untrusted",
  // A session's transcript holds all that session read (pages, mail, others' messages): Claude
  // Code's (`~/.claude/projects/<project>/<session>.jsonl`, a sub-agent's beneath it); OpenClaw's
  // agent database (2026.9.6 keeps every session's messages there, its write-ahead log beside it),
  // its state database (every channel's inbound messages, a group member's too) and the
  // transcript files of the versions before it.
  "**/.claude/projects/**/*.jsonl": "untrusted",
  "**/.openclaw/agents/*/agent/*.sqlite*": "untrusted",
  "**/.openclaw/state/*.sqlite*": "untrusted",
  "**/.openclaw/agents/*/sessions/**": "untrusted",
  // OpenClaw's session memory (on from its onboarding) saves the end of a conversation at every
  // `/new` and reset as `memory/<date>-<time or slug>.md`: the model's replies among it, which
  // repeat what the session read. The agent's own daily note is `memory/<date>.md`.
  "**/memory/[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]-*.md": "untrusted",
  // Claude Code's team mailboxes: what other agents of a team sent this one, which its hooks
  // already judge untrusted when Claude Code hands a message over as a prompt.
  "**/.claude/teams/*/inboxes/**": "untrusted",
  // The long result of an MCP tool Claude Code saves under the call's id and names to the model
  // only, not to the hook: the server's text (a Bash output it names to the hook, and is labelled).
  "**/.claude/projects/*/*/tool-results/toolu_*": "untrusted",
  // What provenant keeps of what tainted turns proposed and were refused, until the owner settles
  // it: staged writes, held calls with their arguments, what a call left at a signed file's path.
  // (Not its state at large: a recursive grep of the workspace reads it all.)
  "**/.provenance/blocked-writes/**": "untrusted",
  "**/.provenance/approvals/**": "untrusted",
  "**/.provenance/sig-kept/**": "untrusted",
  "**/*.eml": "untrusted",
  "**/*.mbox": "untrusted",
  "**/*.msg": "untrusted",
  "**/node_modules/**": "external",
  "**/vendor/**": "external",
  "**/third_party/**": "external",
  "**/site-packages/**": "external",
});

export interface FileTrustMatch {
  readonly level: TrustLevel;
  readonly reason: string;
}

/** What the host itself keeps on disk, which its tools may read back. */
export interface HostFiles {
  /** Directories the host runs from (absolute): its bundled skills and docs. */
  readonly installations?: readonly string[];
  /**
   * The log files the owner configures the host to write (absolute), beside the defaults' own, as
   * the configuration names them now: asked at each look-up, since a host may start writing another
   * one while it runs (OpenClaw applies a change of `logging.file` without a restart).
   */
  readonly logFiles?: () => readonly string[];
}

interface Rule {
  readonly level: TrustLevel;
  readonly test: (path: string) => boolean;
  readonly origin: string;
}

/**
 * `fileTrust` globs to trust levels. The owner's entries are tried first, in the order written,
 * then the host's own files, then the defaults; the first rule that matches decides (so
 * `{"**": "trusted"}` turns the defaults off, and `{"Downloads/mine/**": "trusted"}` carves out
 * one folder). A glob is matched against the workspace-relative path of a file inside the
 * workspace and against its absolute path.
 *
 * The host's log files (`logFiles`) are `untrusted`, with their rotations: a log holds what every
 * session met. The host's installation (`installations`: absolute directories, such as the
 * OpenClaw package the gateway runs from) is `trusted`, less its own `node_modules/`: its bundled
 * skills and docs are the program the owner installed, which its system prompt tells the model to
 * read, not a third party's text, though the default `**\/node_modules/**` would match them.
 */
export class FileTrustRules {
  private readonly ownerRules: readonly Rule[];
  /** The rules of every log file the host has been configured to write: one it wrote keeps what it wrote once another is named. */
  private readonly logRules: Rule[] = [];
  private readonly logFilesNamed = new Set<string>();
  private readonly currentLogFiles: () => readonly string[];
  private readonly hostAndDefaultRules: readonly Rule[];

  constructor(owner: Readonly<Record<string, TrustLevel>>, host: HostFiles = {}) {
    const compile = (glob: string, level: TrustLevel, origin: string): Rule => {
      const test = picomatch(glob, { dot: true, nocase: true });
      return { level, test, origin: `${origin} ${JSON.stringify(glob)}` };
    };
    this.ownerRules = Object.entries(owner).map(([glob, level]) => compile(glob, level, "fileTrust"));
    this.currentLogFiles = host.logFiles ?? (() => []);
    this.hostAndDefaultRules = [
      ...(host.installations ?? []).flatMap((root) => installationRules(root)),
      ...Object.entries(DEFAULT_FILE_TRUST).map(([glob, level]) => compile(glob, level, "default fileTrust")),
    ];
  }

  /** The level for a file, given its workspace-relative path (null outside) and its absolute path. */
  levelFor(relativePath: string | null, absolutePath: string): FileTrustMatch | null {
    this.learnLogFiles();
    const candidates = [absolutePath, absolutePath.replace(/^\/+/, "")];
    if (relativePath !== null) candidates.unshift(relativePath);
    for (const rules of [this.ownerRules, this.logRules, this.hostAndDefaultRules]) {
      for (const rule of rules) {
        if (candidates.some((c) => rule.test(c))) return { level: rule.level, reason: `${rule.origin} matches ${relativePath ?? absolutePath}` };
      }
    }
    return null;
  }

  /** Adds the log files the host's configuration names now that it did not before; none is ever dropped. */
  private learnLogFiles(): void {
    for (const file of this.currentLogFiles()) {
      if (this.logFilesNamed.has(file)) continue;
      this.logFilesNamed.add(file);
      this.logRules.push(...logFileRules(file));
    }
  }
}

/**
 * An installation directory's rules, by path prefix (its name may hold glob characters): its own
 * dependencies stay `external`, the rest is `trusted`. Only absolute paths match.
 */
function installationRules(root: string): Rule[] {
  const base = root.replace(/\/+$/, "");
  if (!base.startsWith("/")) return [];
  const under = (dir: string) => (path: string) => path.startsWith(`${dir}/`);
  return [
    { level: "external", test: under(`${base}/node_modules`), origin: `the host's installation's dependencies (${base}/node_modules/)` },
    { level: "trusted", test: under(base), origin: `the host's installation (${base}/)` },
  ];
}

/**
 * A configured log file's rule, by name (it may hold glob characters): the file and the archives
 * its rotation makes beside it (`gateway.log` becomes `gateway.1.log`, `gateway.2.log`, ...). Only
 * an absolute path matches.
 */
function logFileRules(file: string): Rule[] {
  if (!file.startsWith("/") || file.endsWith("/")) return [];
  const ext = extname(file);
  const stem = file.slice(0, file.length - ext.length);
  const rotated = (path: string) => path.startsWith(`${stem}.`) && path.endsWith(ext) && /^\d+$/.test(path.slice(stem.length + 1, path.length - ext.length));
  return [{ level: "untrusted", test: (path) => path === file || rotated(path), origin: `the host's configured log file (${file})` }];
}

/** Validates owner globs (a ConfigError names the key); picomatch accepts almost anything. */
export function validateFileTrustGlob(glob: string): string | null {
  if (glob.trim() === "") return "a glob must not be empty";
  if (glob.includes("\0")) return "a glob must not contain a NUL byte";
  if (glob.startsWith("!")) return "negation is not supported; list what each folder is instead";
  return null;
}
