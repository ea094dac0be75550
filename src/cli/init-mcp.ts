import { existsSync, readFileSync, statSync, unlinkSync } from "node:fs";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { Command } from "commander";
import { MCP_SERVERS, unwrapServers, wrapServers, type RemoteTransportKey, type ServerListPath } from "../adapters/mcp/client-config.js";
import { enablesPlugin } from "../adapters/openclaw/host-config.js";
import { displayText } from "../core/safe-display.js";
import { writeFileAtomic } from "../state/atomic-file.js";
import { openClawConfigPath } from "./agent-workspace.js";
import { exitWith } from "./exit.js";

export const MCP_CLIENTS = ["claude-desktop", "cursor", "claude-code", "openclaw"] as const;
export type McpClient = (typeof MCP_CLIENTS)[number];

/** Where in its file each client lists its servers: OpenClaw's are `mcp.servers`, the others' `mcpServers`. */
function serverList(client: McpClient): ServerListPath {
  return client === "openclaw" ? ["mcp", "servers"] : MCP_SERVERS;
}

/** How each client's file marks a remote server's transport (Cursor's and Claude Desktop's tell it by the URL alone). */
function remoteTransport(client: McpClient): RemoteTransportKey | undefined {
  if (client === "claude-code") return { key: "type", value: "http" };
  if (client === "openclaw") return { key: "transport", value: "streamable-http" };
  return undefined;
}

/** Where each client keeps its MCP servers (Claude Code: the project's `.mcp.json`). */
export function clientConfigPath(client: McpClient, env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform, cwd = process.cwd()): string {
  const home = env.HOME || homedir();
  switch (client) {
    case "claude-desktop":
      if (platform === "darwin") return join(home, "Library", "Application Support", "Claude", "claude_desktop_config.json");
      if (platform === "win32") return join(env.APPDATA || join(home, "AppData", "Roaming"), "Claude", "claude_desktop_config.json");
      return join(env.XDG_CONFIG_HOME || join(home, ".config"), "Claude", "claude_desktop_config.json");
    case "cursor":
      return join(home, ".cursor", "mcp.json");
    case "claude-code":
      return join(cwd, ".mcp.json");
    case "openclaw":
      return openClawConfigPath(env, home);
  }
}

/** The backup taken at install, beside the client's file; `--uninstall` restores from it. */
export function backupPath(path: string): string {
  return `${path}.provenant-backup`;
}

interface InitMcpOptions {
  readonly client: string;
  readonly config?: string;
  readonly uninstall?: boolean;
  readonly workspace?: string;
  readonly provenantConfig?: string;
}

/** Install or uninstall; returns what to tell the owner. Throws on anything it will not do. */
export function initMcp(opts: InitMcpOptions): string[] {
  if (!(MCP_CLIENTS as readonly string[]).includes(opts.client)) throw new Error(`--client ${JSON.stringify(opts.client)}: one of ${MCP_CLIENTS.join(", ")}`);
  const client = opts.client as McpClient;
  const path = resolve(opts.config ?? clientConfigPath(client));
  const backup = backupPath(path);
  if (!existsSync(path)) throw new Error(`${path} does not exist: add the client's MCP servers first (or name the file with --config)`);
  const bytes = readFileSync(path);
  const mode = statSync(path).mode & 0o777;
  const document = parseJson(bytes.toString("utf8"), path);
  if (opts.uninstall === true) {
    const original = existsSync(backup) ? readFileSync(backup) : null;
    const originalDoc = original === null ? undefined : parseJson(original.toString("utf8"), backup);
    const { document: restored, changed } = unwrapServers(document, originalDoc, serverList(client), remoteTransport(client));
    if (changed.length === 0 && original === null) return [`${path}: no server runs through provenant; nothing to do`];
    // Nothing else changed since install: the file comes back byte for byte.
    const exact = original !== null && JSON.stringify(restored) === JSON.stringify(originalDoc);
    writeFileAtomic(path, exact && original !== null ? original : `${JSON.stringify(restored, null, 2)}\n`, mode);
    if (original !== null) unlinkSync(backup);
    return [
      `${path}: ${changed.length === 0 ? "nothing wrapped" : `restored ${changed.map((c) => displayText(c)).join(", ")}`}${exact ? " (the file as it was before install)" : " (other edits since install kept)"}`,
    ];
  }
  const main = fileURLToPath(new URL("./main.js", import.meta.url));
  const { document: wrapped, changed, skipped } = wrapServers(
    document,
    {
      provenant: [process.execPath, main],
      ...(opts.workspace !== undefined ? { workspace: resolve(opts.workspace) } : {}),
      ...(opts.provenantConfig !== undefined ? { config: resolve(opts.provenantConfig) } : {}),
      // OpenClaw's provenant plugin decides every call of the servers OpenClaw runs, with the whole
      // conversation's taint; proxies that decided them too would ask the owner a second time. Each
      // proxy reads, as it starts, whether this file enables the plugin.
      ...(client === "openclaw" ? { decidedByOpenClaw: path } : {}),
    },
    serverList(client),
  );
  const lines = skipped.map((s) => `${displayText(s.name)}: left as it is (${s.why})`);
  if (changed.length === 0) return [...lines, `${path}: nothing to change`];
  if (!existsSync(backup)) writeFileAtomic(backup, bytes, 0o600);
  writeFileAtomic(path, `${JSON.stringify(wrapped, null, 2)}\n`, mode);
  const decides =
    client !== "openclaw"
      ? []
      : enablesPlugin(document)
        ? ["the provenant plugin of this OpenClaw decides their calls, while this file enables it; the proxies pin what the servers write"]
        : ["the provenant plugin is not enabled in this OpenClaw: each proxy decides its server's calls from what that server answered (held calls name a code for 'provenant approve'), until this file enables the plugin"];
  return [...lines, `${path}: ${changed.map((c) => displayText(c)).join(", ")} now run through provenant (backup: ${backup}); restart the client`, ...decides];
}

export function registerInitMcpCommand(program: Command): void {
  const init = program.commands.find((c) => c.name() === "init") ?? program.command("init").description("install provenant into a host");
  init
    .command("mcp")
    .description("rewrite an MCP client's configuration so each server runs behind provenant mcp: stdio ones, and remote ones that carry their headers (backup, atomic, idempotent)")
    .requiredOption("--client <client>", MCP_CLIENTS.join(" | "))
    .option("--config <path>", "the client's MCP configuration file (default: the client's usual one)")
    .option("--workspace <dir>", "the proxies' workspace (default: theirs, ~/.local/state/provenant)")
    .option("--provenant-config <file>", "the configuration the proxies read (default: theirs, ~/.config/provenant/config.json)")
    .option("--uninstall", "put every wrapped server back as it was")
    .action((opts: InitMcpOptions) => {
      try {
        for (const line of initMcp(opts)) process.stdout.write(`${line}\n`);
      } catch (error) {
        exitWith("init mcp", error);
      }
    });
}

function parseJson(text: string, path: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    // OpenClaw reads JSON5 (comments, trailing commas); this rewrites plain JSON only, as OpenClaw writes it.
    throw new Error(`${path} is not JSON (${error instanceof Error ? error.message : String(error)}); it was not changed (comments and trailing commas are not read)`);
  }
}
