import { existsSync } from "node:fs";
import { homedir } from "node:os";
import { basename, join, resolve } from "node:path";
import type { Command } from "commander";
import { LISTING_KINDS } from "../adapters/mcp/listed-content.js";
import { HEADERS_VARIABLE, remoteHeaders, remoteUrl } from "../adapters/mcp/remote-server.js";
import { runStdioProxy, type ProxiedServer } from "../adapters/mcp/stdio-proxy.js";
import { enablesPlugin } from "../adapters/openclaw/host-config.js";
import { consoleLogger, type Logger } from "../core/logger.js";
import { isMcpServerName } from "../core/mcp-tool-names.js";
import { displayBlock, displayJson, displayText } from "../core/safe-display.js";
import { ApprovalStoreError, PendingApprovalStore } from "../state/pending-approval-store.js";
import { ToolPinStore, type PinKind, type PinState } from "../state/tool-pin-store.js";
import { FileWatermarkStore } from "../state/watermark-store.js";
import { TRUST_LEVELS, type TrustLevel } from "../core/trust-levels.js";
import { readOpenClawConfig } from "./agent-workspace.js";
import { readConfigFile } from "./config.js";
import { exitWith } from "./exit.js";

/** The guard session every proxy of a workspace shares unless told otherwise: the client's model sees all its servers' output at once. */
export const DEFAULT_MCP_SESSION = "mcp";

/**
 * Where MCP state lives when no `--workspace` is given: `PROVENANT_WORKSPACE`, else the user's
 * state directory. An MCP client starts servers from a directory of its own choosing, so the
 * current directory is no guide.
 */
export function mcpWorkspace(explicit: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  if (explicit !== undefined) return resolve(explicit);
  if (env.PROVENANT_WORKSPACE) return resolve(env.PROVENANT_WORKSPACE);
  const stateHome = env.XDG_STATE_HOME || join(homedir(), ".local", "state");
  return join(stateHome, "provenant");
}

/** The owner's configuration: `--config`, else `PROVENANT_CONFIG`, else `$XDG_CONFIG_HOME/provenant/config.{json,yaml}` when present. */
export function ownerConfig(explicit: string | undefined, env: NodeJS.ProcessEnv = process.env): { config: unknown; path: string | null } {
  const named = explicit ?? (env.PROVENANT_CONFIG || undefined);
  if (named !== undefined) return { config: readConfigFile(named), path: named };
  const dir = join(env.XDG_CONFIG_HOME || join(homedir(), ".config"), "provenant");
  for (const name of ["config.json", "config.yaml", "config.yml"]) {
    const path = join(dir, name);
    if (existsSync(path)) return { config: readConfigFile(path), path };
  }
  return { config: {}, path: null };
}

interface RunOptions {
  readonly name?: string;
  readonly url?: string;
  readonly header?: readonly string[];
  readonly workspace?: string;
  readonly config?: string;
  readonly session?: string;
  readonly elicitation?: boolean;
  readonly decidedByOpenclaw?: string;
}

/**
 * Whether the OpenClaw whose configuration is `path` decides this server's calls: its provenant
 * plugin is enabled there. A file that cannot be read or parsed (OpenClaw accepts comments this
 * does not) reads as not enabled, so the proxy decides; the log says which.
 */
export function openClawDecides(path: string, logger: Logger): boolean {
  const read = readOpenClawConfig(path);
  const enabled = "config" in read && enablesPlugin(read.config);
  const why = "why" in read ? read.why : "it does not enable the provenant plugin";
  logger.info(enabled ? `the provenant plugin of ${path} decides this server's calls; the proxy pins what the server writes` : `${path}: ${why}; the proxy decides this server's calls`);
  return enabled;
}

/** The server to run behind the proxy: the command after `--`, or the remote one `--url` names (with `--name`). */
function proxiedServer(command: readonly string[], opts: RunOptions): ProxiedServer {
  const [exe, ...args] = command;
  if (opts.url === undefined) {
    if (opts.header !== undefined) throw new Error("--header is for a remote server (--url)");
    if (exe === undefined) throw new Error("no server command given: provenant mcp --name <server> -- <command> [args...], or --url <url> for a remote server");
    return { command: exe, args };
  }
  if (exe !== undefined) throw new Error("--url names the server: give no command after --");
  if (opts.name === undefined) throw new Error("--url needs --name: the server's tools are named mcp__<name>__<tool>, as the client names them");
  return { url: remoteUrl(opts.url), headers: remoteHeaders(opts.header ?? [], process.env[HEADERS_VARIABLE]) };
}

export function registerMcpCommands(program: Command): void {
  const mcp = program
    .command("mcp")
    .description("run an MCP server behind the guard, for a client that starts it over stdio: provenant mcp [--name <server>] -- <command> [args...], or provenant mcp --name <server> --url <url> for a remote one")
    .option("--name <server>", "the server's name: its tools are mcp__<server>__<tool> in the configuration (default: the command's name)")
    .option("--url <url>", "a remote server (Streamable HTTP, https: or http: to this machine) instead of a command")
    .option("--header <header>", `"Name: value" sent to the remote server with every request (repeatable; keys are better in ${HEADERS_VARIABLE}, a JSON object, than on a command line)`, (value: string, all: string[] = []) => [...all, value])
    .option("--workspace <dir>", "where state (watermarks, pins, held calls, ledger) goes (default: PROVENANT_WORKSPACE, else ~/.local/state/provenant)")
    .option("--config <file>", "the configuration (default: PROVENANT_CONFIG, else ~/.config/provenant/config.json)")
    .option("--session <id>", `the guard session (default: ${DEFAULT_MCP_SESSION}, shared by every proxy of the workspace)`)
    .option("--no-elicitation", "never ask through the client's elicitation (for a client whose model, not its user, answers them): held calls name an approval code")
    .option("--decided-by-openclaw <file>", "OpenClaw's configuration: while it enables the provenant plugin (read as the proxy starts), the plugin decides every call and the proxy only pins what the server writes")
    .argument("[command...]", "the server's command and its arguments, after --")
    .passThroughOptions()
    .action(async (command: string[], opts: RunOptions) => {
      try {
        const upstream = proxiedServer(command, opts);
        const server = opts.name ?? defaultServerName("command" in upstream ? upstream.command : "");
        if (!isMcpServerName(server)) throw new Error(`--name ${JSON.stringify(server)}: use letters, digits, '-' and single '_' (at most 63)`);
        const workspaceDir = mcpWorkspace(opts.workspace);
        const { config } = ownerConfig(opts.config);
        const ws = opts.workspace === undefined ? "" : ` --workspace ${shellWord(workspaceDir)}`;
        const logger = consoleLogger(`[provenant mcp ${server}]`);
        const decideCalls = opts.decidedByOpenclaw === undefined || !openClawDecides(opts.decidedByOpenclaw, logger);
        const code = await runStdioProxy({
          server,
          upstream,
          workspaceDir,
          config,
          sessionId: opts.session ?? DEFAULT_MCP_SESSION,
          logger,
          clientIn: process.stdin,
          clientOut: process.stdout,
          approveCommand: (c) => `provenant approve ${c}${ws}`,
          acceptCommand: (tool) => `provenant mcp accept ${server} ${shellWord(tool)}${ws}`,
          acceptInstructionsCommand: `provenant mcp accept ${server} --instructions${ws}`,
          acceptListingsCommand: `provenant mcp accept ${server} --listings${ws}`,
          elicitation: opts.elicitation !== false,
          decideCalls,
        });
        process.exitCode = code;
      } catch (error) {
        exitWith("mcp", error);
      }
    });

  mcp
    .command("accept")
    .description("accept the changed (or new) definitions of a server's held tools, after reviewing them with 'provenant mcp pins'")
    .argument("<server>", "the server's name")
    .argument("[tools...]", "the tools to accept (default: every held tool of the server)")
    .option("--workspace <dir>", "the proxy's workspace")
    .option("--instructions", "accept the server's changed instructions instead of tools")
    .option("--listings", "accept the changed (or new) entries of the server's prompt and resource listings instead of tools")
    .action((server: string, tools: string[], opts: { workspace?: string; instructions?: boolean; listings?: boolean }) => {
      try {
        if (opts.instructions === true && opts.listings === true) throw new Error("--instructions and --listings are accepted one at a time");
        if (opts.listings === true) {
          if (tools.length > 0) throw new Error("--listings takes no tool names");
          const accepted = LISTING_KINDS.flatMap((kind) => pinStore(server, opts.workspace, kind).accept("all", new Date()).map((name) => `${kind} ${displayText(name)}`));
          process.stdout.write(accepted.length === 0 ? "no held listing entries\n" : `accepted: ${accepted.join(", ")}\n`);
          return;
        }
        if (opts.instructions === true) {
          if (tools.length > 0) throw new Error("--instructions takes no tool names");
          const accepted = pinStore(server, opts.workspace, "instructions").accept("all", new Date());
          process.stdout.write(accepted.length === 0 ? "no held instructions\n" : "accepted: the server's instructions\n");
          return;
        }
        const store = pinStore(server, opts.workspace);
        const held = store.read().held;
        for (const tool of tools) if (!held.has(tool)) throw new Error(`${server} has no held tool ${JSON.stringify(tool)}; held: ${[...held.keys()].join(", ") || "none"}`);
        const accepted = store.accept(tools.length === 0 ? "all" : tools, new Date());
        process.stdout.write(accepted.length === 0 ? "nothing held\n" : `accepted: ${accepted.map((t) => displayText(t)).join(", ")}\n`);
      } catch (error) {
        exitWith("mcp accept", error);
      }
    });

  mcp
    .command("pins")
    .description("show a server's pinned tool definitions and the held ones that differ from them, its pinned and held instructions, and the pinned and held entries of its prompt and resource listings")
    .argument("<server>", "the server's name")
    .option("--workspace <dir>", "the proxy's workspace")
    .action((server: string, opts: { workspace?: string }) => {
      try {
        const state = pinStore(server, opts.workspace).read();
        const held = heldBesidePinned(state);
        const given = pinStore(server, opts.workspace, "instructions").read();
        const instructions = {
          pinned: given.tools.get("instructions")?.definition ?? null,
          held: given.held.has("instructions") ? { now: given.held.get("instructions")?.definition, seenAt: given.held.get("instructions")?.seenAt } : null,
        };
        const listings = Object.fromEntries(
          LISTING_KINDS.map((kind) => {
            const listing = pinStore(server, opts.workspace, kind).read();
            return [kind, { pinned: [...listing.tools.keys()], held: heldBesidePinned(listing) }];
          }),
        );
        process.stdout.write(`${displayJson({ server, pinned: [...state.tools.keys()], held, instructions, listings }, 2)}\n`);
      } catch (error) {
        exitWith("mcp pins", error);
      }
    });

  mcp
    .command("reset-trust")
    .description("the owner's trust reset for the MCP session: later calls are decided from this level")
    .argument("[level]", `one of ${TRUST_LEVELS.join(", ")}`, "trusted")
    .option("--workspace <dir>", "the proxy's workspace")
    .option("--session <id>", "the guard session", DEFAULT_MCP_SESSION)
    .action((level: string, opts: { workspace?: string; session: string }) => {
      try {
        if (!(TRUST_LEVELS as readonly string[]).includes(level)) throw new Error(`${JSON.stringify(level)} is not a trust level; expected one of ${TRUST_LEVELS.join(", ")}`);
        const store = new FileWatermarkStore(mcpWorkspace(opts.workspace));
        try {
          store.reset(opts.session, level as TrustLevel, "owner (provenant mcp reset-trust)", new Date());
        } finally {
          store.close();
        }
        process.stdout.write(`session ${displayText(opts.session)}: trust reset to ${level}\n`);
      } catch (error) {
        exitWith("mcp reset-trust", error);
      }
    });

  program
    .command("approve")
    .description("answer a held call by its approval code: a holder that waits for the answer runs it at once; otherwise it runs when the model retries it unchanged")
    .argument("<code>", "the approval code the held call named")
    .option("--deny", "refuse it instead")
    .option("--minutes <n>", "approve every call of that tool for this many minutes, not just this one", parseMinutes)
    .option("--turn", "approve every call of that tool for the rest of the holder's turn, not just this one")
    .option("--workspace <dir>", "the workspace of the process that holds the call")
    .action((code: string, opts: { deny?: boolean; minutes?: number; turn?: boolean; workspace?: string }) => {
      try {
        if (opts.turn === true && (opts.minutes !== undefined || opts.deny === true)) throw new ApprovalStoreError("--turn cannot be combined with --minutes or --deny");
        const store = new PendingApprovalStore(mcpWorkspace(opts.workspace));
        const verdict = opts.deny === true ? "deny" : "approve";
        const scope = opts.turn === true ? "turn" : opts.minutes !== undefined ? "minutes" : "call";
        const held = store.answer(code, verdict, { scope, minutes: verdict === "approve" ? (opts.minutes ?? null) : null, by: "cli", now: Date.now() });
        const waiting = held.waitingUntil !== null && Date.parse(held.waitingUntil) > Date.now();
        process.stdout.write(
          `${verdict === "approve" ? "approved" : "denied"}: ${displayText(held.tool)} from ${displayText(held.origin)}${verdict === "approve" && scope !== "call" ? (scope === "turn" ? " (for the rest of the turn)" : ` (for ${opts.minutes} minutes)`) : ""}\n` +
            `call: ${displayBlock(held.call)}\n` +
            (verdict === "approve" ? (waiting ? "the waiting call runs now\n" : "it runs when the model retries the same call\n") : ""),
        );
      } catch (error) {
        exitWith("approve", error);
      }
    });

  program
    .command("approvals")
    .description("list the held calls waiting for the owner")
    .option("--workspace <dir>", "the workspace of the processes that hold them")
    .option("--json", "one JSON object per held call")
    .action((opts: { workspace?: string; json?: boolean }) => {
      try {
        const entries = new PendingApprovalStore(mcpWorkspace(opts.workspace)).list(Date.now());
        for (const { pending, answer } of entries) {
          if (opts.json === true) process.stdout.write(`${displayJson({ ...pending, answer })}\n`);
          else {
            const answered = answer === null ? "waiting" : `answered: ${answer.verdict}${answer.scope === null || answer.scope === "call" ? "" : answer.scope === "turn" ? " (turn)" : ` (${answer.minutes ?? "?"} minutes)`}`;
            const holding = pending.waitingUntil === null ? "" : `  held open until ${pending.waitingUntil}`;
            process.stdout.write(`${pending.code}  ${displayText(pending.tool)}  ${displayText(pending.frontEnd)}  ${answered}  expires ${pending.expiresAt}${holding}\n  ${displayText(pending.call)}\n  ${displayText(pending.reason)}\n`);
          }
        }
        if (entries.length === 0 && opts.json !== true) process.stdout.write("no held calls\n");
      } catch (error) {
        exitWith("approvals", error);
      }
    });
}

/** Each held definition as it is now, next to the one pinned (null for one new since the first listing). */
function heldBesidePinned(state: PinState): { name: string; now: unknown; pinned: unknown; seenAt: string }[] {
  return [...state.held].map(([name, h]) => ({ name, now: h.definition, pinned: state.tools.get(name)?.definition ?? null, seenAt: h.seenAt }));
}

function pinStore(server: string, workspace: string | undefined, kind: PinKind = "tools"): ToolPinStore {
  if (!isMcpServerName(server)) throw new Error(`${JSON.stringify(server)} is not a server name`);
  return new ToolPinStore(mcpWorkspace(workspace), server, undefined, kind);
}

/** The command's base name without its extension, as a server name (`/usr/bin/my_server.py` → `my-server`). */
export function defaultServerName(command: string): string {
  return (
    basename(command)
      .replace(/\.[A-Za-z0-9]+$/u, "")
      .replace(/[^A-Za-z0-9-]+/gu, "-")
      .replace(/^-+|-+$/gu, "")
      .slice(0, 63) || "server"
  );
}

function parseMinutes(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > 1440) throw new Error(`--minutes ${JSON.stringify(value)}: a whole number from 1 to 1440`);
  return n;
}

function shellWord(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/u.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`;
}
