import { isRecord } from "../../core/json-record.js";

/**
 * What `provenant mcp --url` is given: the remote server's URL and the headers that go with
 * every request (an API key). Both are checked before anything is sent, and each problem is
 * named; a header's value never appears in a message.
 */

/** The environment variable holding headers as a JSON object, so a key need not be on a command line other users can list. */
export const HEADERS_VARIABLE = "PROVENANT_MCP_HEADERS";

/** Headers the transport sets itself, or that fetch does not let a caller set. */
const RESERVED = new Set(["accept", "content-type", "content-length", "mcp-session-id", "mcp-protocol-version", "last-event-id", "host", "connection", "transfer-encoding", "keep-alive", "upgrade", "te", "trailer", "expect"]);
/** RFC 9110's token. */
const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** Visible characters, spaces and tabs; no line break can end the header early. */
const HEADER_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;

export class RemoteServerError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "RemoteServerError";
  }
}

/**
 * The server's URL: `https:`, or `http:` to this machine only (a key sent over plain HTTP to
 * another host can be read on the way). No user or password in it: headers carry credentials.
 */
export function remoteUrl(text: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new RemoteServerError(`--url ${JSON.stringify(text)} is not a URL`);
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") throw new RemoteServerError(`--url: ${url.protocol} is not HTTP; the proxy speaks Streamable HTTP (https:)`);
  if (url.username !== "" || url.password !== "") throw new RemoteServerError("--url holds a user or password; give credentials as a header (--header or PROVENANT_MCP_HEADERS)");
  if (url.protocol === "http:" && !isLoopback(url.hostname)) throw new RemoteServerError(`--url: plain http is for a server on this machine only (localhost, 127.0.0.1, [::1]), not ${url.hostname}; use https`);
  url.hash = "";
  return url;
}

function isLoopback(hostname: string): boolean {
  return hostname === "localhost" || hostname === "[::1]" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname);
}

/**
 * The headers: `PROVENANT_MCP_HEADERS` (a JSON object of strings), then each `--header
 * "Name: value"`, a later one replacing an earlier of the same name (names are case-insensitive).
 */
export function remoteHeaders(flags: readonly string[], fromEnv: string | undefined): Record<string, string> {
  const headers = new Map<string, { name: string; value: string }>();
  const add = (name: string, value: string, where: string) => {
    // Not quoted: a name that is not one may be a key typed without its colon.
    if (!HEADER_NAME.test(name)) throw new RemoteServerError(`${where}: a header's name holds a character names cannot (letters, digits and !#$%&'*+-.^_\`|~ only)`);
    if (RESERVED.has(name.toLowerCase())) throw new RemoteServerError(`${where}: ${name} is set by the transport itself`);
    if (!HEADER_VALUE.test(value)) throw new RemoteServerError(`${where}: the value of ${name} holds a character a header cannot carry (a line break, a control character, or one past U+00FF)`);
    headers.set(name.toLowerCase(), { name, value: value.trim() });
  };
  if (fromEnv !== undefined && fromEnv !== "") {
    let parsed: unknown;
    try {
      parsed = JSON.parse(fromEnv);
    } catch {
      throw new RemoteServerError(`${HEADERS_VARIABLE} is not JSON: give an object of header names and values`);
    }
    if (!isRecord(parsed)) throw new RemoteServerError(`${HEADERS_VARIABLE} is not a JSON object of header names and values`);
    for (const [name, value] of Object.entries(parsed)) {
      if (typeof value !== "string") throw new RemoteServerError(`${HEADERS_VARIABLE}: a header's value is not a string`);
      add(name, value, HEADERS_VARIABLE);
    }
  }
  for (const flag of flags) {
    const colon = flag.indexOf(":");
    if (colon <= 0) throw new RemoteServerError(`--header: give "Name: value" (the header's name is missing)`);
    add(flag.slice(0, colon).trim(), flag.slice(colon + 1), "--header");
  }
  return Object.fromEntries([...headers.values()].map(({ name, value }) => [name, value]));
}
