import { isMcpServerName } from "../../core/mcp-tool-names.js";
import { isRecord } from "../../core/json-record.js";
import { HEADERS_VARIABLE, remoteUrl } from "./remote-server.js";

/**
 * An MCP client's server list (`mcpServers` in Claude Desktop's, Cursor's and Claude Code's
 * files, `mcp.servers` in OpenClaw's), rewritten so each server runs behind `provenant mcp`, and
 * back. Pure: the caller reads and writes the file.
 */

/** Where a client's file keeps its servers: a key of the document, or a key of an object under one. */
export type ServerListPath = readonly [string] | readonly [string, string];

export const MCP_SERVERS: ServerListPath = ["mcpServers"];

/** How a client's file marks a remote server's transport, for an entry rebuilt with no backup. */
export interface RemoteTransportKey {
  readonly key: string;
  readonly value: string;
}

export interface WrapOptions {
  /** How to run provenant: the program and the arguments before `mcp`. */
  readonly provenant: readonly string[];
  readonly workspace?: string;
  readonly config?: string;
  /** OpenClaw's configuration file: its provenant plugin decides the calls while it is enabled (`--decided-by-openclaw`). */
  readonly decidedByOpenClaw?: string;
}

export interface Rewrite {
  readonly document: Record<string, unknown>;
  /** The servers changed, by their key in the file. */
  readonly changed: readonly string[];
  /** Servers left as they are, and why (not stdio, already wrapped). */
  readonly skipped: readonly { readonly name: string; readonly why: string }[];
}

export class ClientConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ClientConfigError";
  }
}

/**
 * Each stdio server's command becomes provenant's, with the original after `--`; each remote
 * (Streamable HTTP) server that carries its own headers becomes `provenant mcp --url`, the headers
 * moved to the entry's environment (`PROVENANT_MCP_HEADERS`: not on a command line other users can
 * list). A remote server with no headers is left alone: the client may sign in to it itself
 * (OAuth), which the proxy cannot do for it. Already wrapped ones stay as they are.
 */
export function wrapServers(document: unknown, options: WrapOptions, path: ServerListPath = MCP_SERVERS): Rewrite {
  const { doc, servers } = serversOf(document, path);
  const changed: string[] = [];
  const skipped: { name: string; why: string }[] = [];
  const out: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
  for (const [name, entry] of Object.entries(servers)) {
    out[name] = entry;
    if (isRemoteEntry(entry)) {
      const remote = wrapRemote(name, entry, options);
      if ("why" in remote) skipped.push({ name, why: remote.why });
      else {
        out[name] = remote.entry;
        changed.push(name);
      }
      continue;
    }
    if (!isStdioEntry(entry)) {
      skipped.push({ name, why: "not a stdio server (no command, or a url/type other than stdio)" });
      continue;
    }
    if (isWrapped(entry)) {
      skipped.push({ name, why: "already runs through provenant" });
      continue;
    }
    const args = Array.isArray(entry.args) ? (entry.args as unknown[]) : [];
    if (!args.every((a) => typeof a === "string")) {
      skipped.push({ name, why: "its args are not all strings" });
      continue;
    }
    const proxyArgs = [...proxyOptions(name, options), "--", entry.command as string, ...(args as string[])];
    out[name] = { ...entry, command: options.provenant[0], args: proxyArgs };
    changed.push(name);
  }
  return { document: withServers(doc, path, out), changed, skipped };
}

/** `provenant mcp` and its options, up to the server it runs. */
function proxyOptions(name: string, options: WrapOptions): string[] {
  return [
    ...options.provenant.slice(1),
    "mcp",
    "--name",
    serverName(name),
    ...(options.workspace !== undefined ? ["--workspace", options.workspace] : []),
    ...(options.config !== undefined ? ["--config", options.config] : []),
    ...(options.decidedByOpenClaw !== undefined ? ["--decided-by-openclaw", options.decidedByOpenClaw] : []),
  ];
}

/** Settings of a remote entry for the client's own connection (OpenClaw's TLS options). */
const CONNECTION_SETTINGS = ["sslVerify", "clientCert", "clientKey"] as const;

/** Settings a client applies to the process it starts for a stdio server (Cursor's `envFile` too). */
const PROCESS_SETTINGS = ["env", "envFile", "cwd", "workingDirectory"] as const;

/** A remote entry as `provenant mcp --url`, or why it stays as it is. */
function wrapRemote(name: string, entry: Record<string, unknown> & { url: string }, options: WrapOptions): { entry: Record<string, unknown> } | { why: string } {
  if (entry.type === "sse" || entry.transport === "sse" || /\/sse\/?$/u.test(entry.url.split("?")[0] ?? "")) return { why: "a remote server on the older SSE transport: the proxy speaks Streamable HTTP only" };
  if (entry.auth !== undefined || entry.oauth !== undefined) return { why: "a remote server the client signs in to (OAuth), which the proxy cannot do for it" };
  // A URL the client fills in from its environment (`${VAR}`) is checked by the proxy as it starts.
  if (!entry.url.includes("${")) {
    try {
      remoteUrl(entry.url);
    } catch (error) {
      return { why: `a URL the proxy would refuse (${error instanceof Error ? error.message : String(error)})` };
    }
  }
  const tls = CONNECTION_SETTINGS.filter((key) => entry[key] !== undefined);
  if (tls.length > 0) return { why: `a remote server with connection settings the proxy does not take (${tls.join(", ")})` };
  if (entry.headersHelper !== undefined) return { why: "a remote server whose headers a command makes each time (headersHelper), which the proxy does not run" };
  // A remote entry runs no process, so these meant nothing for it; on the proxy it would become,
  // they would shape a program (NODE_OPTIONS, an env file): a file that says "connect there" must
  // not turn into one that says "run this".
  const forProcess = PROCESS_SETTINGS.filter((key) => entry[key] !== undefined);
  if (forProcess.length > 0) return { why: `a remote server with settings for a process (${forProcess.join(", ")}), which it does not have; the proxy it would become must not take them` };
  const headers = entry.headers;
  if (!isRecord(headers) || Object.keys(headers).length === 0) {
    return { why: `a remote server with no headers: the client may sign in to it itself (OAuth), which the proxy cannot do for it; if it needs no sign-in, run it as provenant mcp --name ${serverName(name)} --url <its url>` };
  }
  // OpenClaw's files may give a header a number or a boolean, which it sends as text.
  if (!Object.values(headers).every((v) => typeof v === "string" || typeof v === "number" || typeof v === "boolean")) return { why: "its headers are not all strings" };
  const sent = Object.fromEntries(Object.entries(headers).map(([key, value]) => [key, String(value)]));
  const { type: _type, transport: _transport, url, headers: _headers, ...rest } = entry;
  return {
    entry: {
      ...rest,
      command: options.provenant[0],
      args: [...proxyOptions(name, options), "--url", url],
      env: { [HEADERS_VARIABLE]: JSON.stringify(sent) },
    },
  };
}

/**
 * Each wrapped server back to its own command: the entry from `original` (the backup taken at
 * install) when that is what was wrapped, else the command and arguments after `--` (a remote
 * one: its URL, its headers, and `remote`, how the client's file marks its transport).
 */
export function unwrapServers(document: unknown, original: unknown, path: ServerListPath = MCP_SERVERS, remote?: RemoteTransportKey): Rewrite {
  const { doc, servers } = serversOf(document, path);
  const before = original === undefined ? undefined : serversOf(original, path).servers;
  const changed: string[] = [];
  const out: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
  for (const [name, entry] of Object.entries(servers)) {
    out[name] = entry;
    if (!isStdioEntry(entry) || !isWrapped(entry)) continue;
    const args = entry.args as string[];
    const kept = before !== undefined && Object.hasOwn(before, name) ? before[name] : undefined;
    const remoteUrl = wrappedUrl(args);
    if (remoteUrl !== null) {
      out[name] = isRemoteEntry(kept) && kept.url === remoteUrl ? kept : unwrapRemote(entry, remoteUrl, remote);
      changed.push(name);
      continue;
    }
    const cut = args.indexOf("--");
    const [command, ...rest] = args.slice(cut + 1);
    if (command === undefined) continue;
    if (isStdioEntry(kept) && kept.command === command && sameArgs(kept.args, rest)) {
      out[name] = kept;
    } else {
      out[name] = { ...entry, command, args: rest };
    }
    changed.push(name);
  }
  return { document: withServers(doc, path, out), changed, skipped: [] };
}

/** The URL a wrapped remote entry runs (`--url <url>` where a stdio one has `--`), else null. */
function wrappedUrl(args: readonly string[]): string | null {
  if (args.includes("--")) return null;
  const at = args.indexOf("--url");
  return at !== -1 && typeof args[at + 1] === "string" ? (args[at + 1] as string) : null;
}

/** A wrapped remote entry rebuilt with no backup: its URL, its headers back from the environment. */
function unwrapRemote(entry: Record<string, unknown>, url: string, remote: RemoteTransportKey | undefined): Record<string, unknown> {
  const { command: _command, args: _args, env, ...rest } = entry;
  let headers: unknown;
  const others = Object.create(null) as Record<string, unknown>;
  if (isRecord(env)) {
    for (const [key, value] of Object.entries(env)) {
      if (key !== HEADERS_VARIABLE) others[key] = value;
      else if (typeof value === "string") {
        try {
          headers = JSON.parse(value) as unknown;
        } catch {
          headers = undefined;
        }
      }
    }
  }
  return {
    ...rest,
    ...(remote !== undefined ? { [remote.key]: remote.value } : {}),
    url,
    ...(isRecord(headers) ? { headers } : {}),
    ...(Object.keys(others).length > 0 ? { env: others } : {}),
  };
}

/** A file's key as a server name provenant accepts (the tools' names carry it). */
export function serverName(key: string): string {
  if (isMcpServerName(key)) return key;
  const cleaned = key
    .replace(/[^A-Za-z0-9-]+/gu, "-")
    .replace(/^-+|-+$/gu, "")
    .slice(0, 63);
  return cleaned === "" ? "server" : cleaned;
}

function serversOf(document: unknown, path: ServerListPath): { doc: Record<string, unknown>; servers: Record<string, unknown> } {
  if (!isRecord(document)) throw new ClientConfigError("the client's configuration is not a JSON object");
  let servers: Record<string, unknown> = document;
  for (const [i, key] of path.entries()) {
    const next = Object.hasOwn(servers, key) ? servers[key] : {};
    if (!isRecord(next)) throw new ClientConfigError(`${path.slice(0, i + 1).join(".")} is not an object`);
    servers = next;
  }
  return { doc: document, servers };
}

/** The document with its server list replaced, everything else as it was. */
function withServers(doc: Record<string, unknown>, path: ServerListPath, servers: Record<string, unknown>): Record<string, unknown> {
  const [outer, inner] = path;
  if (inner === undefined) return { ...doc, [outer]: servers };
  const section = Object.hasOwn(doc, outer) ? (doc[outer] as Record<string, unknown>) : {};
  return { ...doc, [outer]: { ...section, [inner]: servers } };
}

/** A server the client reaches by URL (no command of its own). */
function isRemoteEntry(entry: unknown): entry is Record<string, unknown> & { url: string } {
  return isRecord(entry) && typeof entry.url === "string" && entry.url !== "" && entry.command === undefined;
}

function isStdioEntry(entry: unknown): entry is Record<string, unknown> & { command: string } {
  return isRecord(entry) && typeof entry.command === "string" && entry.command !== "" && (entry.type === undefined || entry.type === "stdio") && entry.url === undefined;
}

/**
 * Ours: `provenant mcp --name …` or `node …/cli/main.js mcp --name …`, with `--` before the
 * server's command. Another program that happens to take `mcp --name` is not mistaken for it.
 */
function isWrapped(entry: Record<string, unknown>): boolean {
  const args = entry.args;
  if (!Array.isArray(args)) return false;
  const command = String(entry.command);
  const first = args[0];
  const at = /(^|[/\\])provenant(\.[a-z]+)?$/u.test(command) ? 0 : typeof first === "string" && /[/\\]cli[/\\]main\.js$/u.test(first) ? 1 : -1;
  return at !== -1 && args[at] === "mcp" && args[at + 1] === "--name" && (args.indexOf("--", at) !== -1 || wrappedUrl(args) !== null);
}

function sameArgs(kept: unknown, rest: readonly string[]): boolean {
  if (kept === undefined) return rest.length === 0;
  return Array.isArray(kept) && kept.length === rest.length && kept.every((a, i) => a === rest[i]);
}
