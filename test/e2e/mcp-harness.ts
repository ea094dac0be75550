import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { CallToolResultSchema, ElicitRequestSchema, type ElicitResult } from "@modelcontextprotocol/sdk/types.js";

export const ROOT = fileURLToPath(new URL("../..", import.meta.url));
export const MAIN = join(ROOT, "dist/cli/main.js");
export const FILESYSTEM_SERVER = join(ROOT, "node_modules/@modelcontextprotocol/server-filesystem/dist/index.js");
export const EVERYTHING_SERVER = join(ROOT, "node_modules/@modelcontextprotocol/server-everything/dist/index.js");
export const RUG_PULL_SERVER = join(ROOT, "test/e2e/fixtures/mcp/rug-pull-server.mjs");
export const ID_GUESSING_SERVER = join(ROOT, "test/e2e/fixtures/mcp/id-guessing-server.mjs");
export const DISCOVER_SERVER = join(ROOT, "test/e2e/fixtures/mcp/discover-server.mjs");
export const CHANNEL_SERVER = join(ROOT, "test/e2e/fixtures/mcp/channel-server.mjs");
export const FIRST_NAME_SERVER = join(ROOT, "test/e2e/fixtures/mcp/first-name-server.mjs");
export const HTTP_SERVER = join(ROOT, "test/e2e/fixtures/mcp/http-server.mjs");

/** The configuration an owner writes for the filesystem server: its reads run at any taint, its output is untrusted. */
export const FS_CONFIG = {
  // What a write reports back is the server's confirmation of the model's own arguments.
  toolOutputTaints: { "mcp__fs__*": "untrusted", mcp__fs__write_file: "trusted", mcp__fs__move_file: "trusted", mcp__fs__create_directory: "trusted" },
  toolActionClasses: { "mcp__fs__*": "write", "mcp__fs__read_text_file": "read", "mcp__fs__list_directory": "read" },
  toolOverrides: Object.fromEntries(
    ["read_file", "read_text_file", "read_media_file", "read_multiple_files", "list_directory", "list_directory_with_sizes", "directory_tree", "search_files", "get_file_info", "list_allowed_directories"].map(
      (t) => [`mcp__fs__${t}`, { "*": "allow" }],
    ),
  ),
};

export interface Scene {
  readonly dir: string;
  readonly workspace: string;
  readonly configFile: string;
}

const scenes: string[] = [];

/** Removes every scene's directory; call after the clients (and so the proxies) are closed. */
export function removeScenes(): void {
  for (const dir of scenes.splice(0)) rmSync(dir, { recursive: true, force: true });
}

export function scene(config: unknown): Scene {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "provenant-mcp-e2e-")));
  scenes.push(dir);
  const workspace = join(dir, "state");
  const configFile = join(dir, "config.json");
  writeFileSync(configFile, JSON.stringify(config));
  return { dir, workspace, configFile };
}

/**
 * How a client runs a server that is a Node script: behind the built `provenant mcp` with the
 * scene's workspace and configuration, or directly when `proxied` is false (the control).
 */
export function serverArgs(name: string, script: readonly string[], o: { readonly proxied: boolean; readonly workspace: string; readonly configFile: string }): string[] {
  return o.proxied ? [MAIN, "mcp", "--name", name, "--workspace", o.workspace, "--config", o.configFile, "--", process.execPath, ...script] : [...script];
}

export interface Connected {
  readonly client: Client;
  readonly stderr: () => string;
  close(): Promise<void>;
}

/**
 * The official SDK client on a real stdio transport, to the server run behind `provenant mcp`
 * (the built CLI), or to the server directly when `proxied` is false: the control.
 */
export async function connect(
  s: Scene,
  server: { name: string; command: string; args: readonly string[] },
  options: {
    proxied: boolean;
    elicit?: (message: string) => ElicitResult["action"] | Promise<ElicitResult["action"]>;
    /** Every notification of a method the SDK does not handle itself, as a client that shows them its model would take it. */
    notified?: (method: string, params: unknown) => void;
  },
): Promise<Connected> {
  const command = options.proxied ? process.execPath : server.command;
  const args = options.proxied
    ? [MAIN, "mcp", "--name", server.name, "--workspace", s.workspace, "--config", s.configFile, "--", server.command, ...server.args]
    : [...server.args];
    // The SDK's stdio client refuses a message over 10 MiB unless told otherwise; a 10 MB file read is about 20 MB of JSON.
  const transport = new StdioClientTransport({ command, args, stderr: "pipe", maxBufferSize: 64 * 1024 * 1024, env: { ...(process.env as Record<string, string>), PROVENANT_CONFIG: "" } });
  let stderr = "";
  transport.stderr?.on("data", (d: Buffer) => (stderr += d.toString("utf8")));
  const client = new Client({ name: "provenant-e2e", version: "1.0.0" }, { capabilities: options.elicit ? { elicitation: {} } : {} });
  const elicit = options.elicit;
  if (elicit !== undefined) {
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      const action = await elicit(String(request.params.message));
      return action === "accept" ? { action, content: {} } : { action };
    });
  }
  const notified = options.notified;
  if (notified !== undefined) client.fallbackNotificationHandler = async (n) => notified(n.method, n.params);
  await client.connect(transport);
  return { client, stderr: () => stderr, close: () => client.close() };
}

export function text(result: unknown): string {
  const parsed = CallToolResultSchema.parse(result);
  return parsed.content.map((c) => (c.type === "text" ? c.text : "")).join("\n");
}

export function cli(s: Scene, ...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [MAIN, ...args, "--workspace", s.workspace], { encoding: "utf8" });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** The remote MCP server of `http-server.mjs` (see there), started; resolves with its URL once it listens. */
export async function startHttpServer(args: readonly string[]): Promise<{ url: string; server: ChildProcess }> {
  const server = spawn(process.execPath, [HTTP_SERVER, ...args], { stdio: ["ignore", "pipe", "inherit"] });
  const url = await new Promise<string>((resolve, reject) => {
    createInterface({ input: server.stdout! }).once("line", resolve);
    server.once("exit", (code) => reject(new Error(`the remote MCP server exited (${code})`)));
  });
  return { url, server };
}

/** A JSON-RPC answer as a raw client reads it. */
export type RawAnswer = { readonly id?: unknown; readonly result?: { readonly isError?: boolean; readonly content?: readonly { readonly text?: string }[] }; readonly error?: unknown };

export interface RawClient {
  /** Writes `line` as it is and resolves with the answer to request `id`. */
  request(id: number, line: string): Promise<RawAnswer>;
  /** A tools/call of `name` written with JSON.stringify, as the SDK's client writes it. */
  call(id: number, name: string, args: unknown): Promise<RawAnswer>;
  readonly stderr: () => string;
  close(): Promise<void>;
}

/**
 * A client that writes each line as given over a real stdio pipe: one that passes the model's
 * argument text through unparsed, which the SDK's client (JSON.stringify) cannot be. Initialized
 * and the tools listed before it resolves.
 */
export async function rawClient(command: string, args: readonly string[]): Promise<RawClient> {
  const child = spawn(command, [...args], { stdio: ["pipe", "pipe", "pipe"], env: { ...process.env, PROVENANT_CONFIG: "" } });
  let stderr = "";
  child.stderr.on("data", (d: Buffer) => (stderr += d.toString("utf8")));
  const waiting = new Map<number, { resolve: (answer: RawAnswer) => void; reject: (error: Error) => void }>();
  createInterface({ input: child.stdout }).on("line", (line) => {
    const answer = JSON.parse(line) as RawAnswer;
    if (typeof answer.id === "number" && !("method" in answer)) waiting.get(answer.id)?.resolve(answer);
  });
  child.once("exit", (code) => {
    for (const [id, w] of waiting) w.reject(new Error(`the server exited (${code}) before answering ${id}\n${stderr}`));
  });
  const request = (id: number, line: string) =>
    new Promise<RawAnswer>((resolve, reject) => {
      waiting.set(id, { resolve, reject });
      child.stdin.write(`${line}\n`);
    });
  const client: RawClient = {
    request,
    call: (id, name, args) => request(id, JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: args } })),
    stderr: () => stderr,
    close: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.stdin.end();
      await exited;
    },
  };
  const init = { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "provenant-e2e-raw", version: "1.0.0" } };
  await request(0, JSON.stringify({ jsonrpc: "2.0", id: 0, method: "initialize", params: init }));
  child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })}\n`);
  await request(1, JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }));
  return client;
}
