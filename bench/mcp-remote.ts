import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { MAIN as main, startHttpServer } from "../test/e2e/mcp-harness.js";
import { meanMs, median, OVERHEAD_HEADERS, overheadRow, printTable } from "./lib/stats.js";

/**
 * What `provenant mcp --url` adds per message to a remote server: the official SDK client calls a
 * real SDK server over Streamable HTTP on loopback, directly (the SDK's own HTTP client, the
 * baseline) and over stdio through the built proxy, which POSTs each message on, in interleaved
 * rounds. Rows: an allowed tools/call round trip, a held one (the guard answers, the server never
 * sees it), tools/list. Medians of the rounds' means.
 */
const ROUNDS = 7;
const PER_ROUND = 200;
const TOKEN = "bench-token";


async function proxied(dir: string, url: string, config: unknown, workspace: string): Promise<Client> {
  const configFile = join(dir, `config-${Math.random().toString(16).slice(2)}.json`);
  writeFileSync(configFile, JSON.stringify(config));
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [main, "mcp", "--name", "bench", "--url", url, "--workspace", workspace, "--config", configFile],
    env: { ...(process.env as Record<string, string>), PROVENANT_MCP_HEADERS: JSON.stringify({ Authorization: `Bearer ${TOKEN}` }) },
    stderr: "ignore",
  });
  const client = new Client({ name: "bench", version: "1.0.0" });
  await client.connect(transport);
  return client;
}

async function direct(url: string): Promise<Client> {
  const client = new Client({ name: "bench", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } } }));
  return client;
}

async function main_(): Promise<void> {
  if (!existsSync(main)) throw new Error("dist/cli/main.js is missing: run `npm run build` (npm run bench does)");
  const dir = mkdtempSync(join(tmpdir(), "provenant-bench-mcp-remote-"));
  writeFileSync(join(dir, "description.txt"), "Saves a note.");
  writeFileSync(join(dir, "page.txt"), "");
  const { url, server } = await startHttpServer([join(dir, "description.txt"), join(dir, "saved.txt"), join(dir, "page.txt"), "--token", TOKEN]);
  // Trusted output and a known tool: every call is allowed, the guard still decides each one.
  const allowed = await proxied(dir, url, { toolOutputTaints: { "mcp__bench__*": "trusted" } }, join(dir, "ws-allowed"));
  // Every call held (confirm at trusted): the proxy answers from the guard, the server is not called.
  const held = await proxied(dir, url, { toolOutputTaints: { "mcp__bench__*": "trusted" }, taintPolicy: { trusted: "confirm" } }, join(dir, "ws-held"));
  const straight = await direct(url);
  const call = (c: Client) => () => c.callTool({ name: "notes", arguments: { text: "x" } });
  const list = (c: Client) => () => c.listTools();
  for (const c of [allowed, held, straight]) for (let i = 0; i < 50; i++) await call(c)();
  const rows = { direct: [] as number[], allowed: [] as number[], held: [] as number[], listDirect: [] as number[], listProxy: [] as number[] };
  for (let r = 0; r < ROUNDS; r++) {
    rows.direct.push(await meanMs(PER_ROUND, call(straight)));
    rows.allowed.push(await meanMs(PER_ROUND, call(allowed)));
    rows.held.push(await meanMs(PER_ROUND, call(held)));
    rows.listDirect.push(await meanMs(PER_ROUND, list(straight)));
    rows.listProxy.push(await meanMs(PER_ROUND, list(allowed)));
  }
  for (const c of [allowed, held, straight]) await c.close();
  server.kill();
  rmSync(dir, { recursive: true, force: true });
  const d = median(rows.direct);
  const ld = median(rows.listDirect);
  console.log(`SDK client to an SDK server over Streamable HTTP on loopback; medians of ${ROUNDS} rounds x ${PER_ROUND} sequential requests\n`);
  printTable(
    OVERHEAD_HEADERS,
    [
      overheadRow("tools/call direct over HTTP (baseline)", d, d),
      overheadRow("tools/call through the proxy, allowed", median(rows.allowed), d),
      overheadRow("tools/call through the proxy, held (answered by the proxy)", median(rows.held), d),
      overheadRow("tools/list direct over HTTP (baseline)", ld, ld),
      overheadRow("tools/list through the proxy (pins checked, taint filter)", median(rows.listProxy), ld),
    ],
  );
}

await main_();
