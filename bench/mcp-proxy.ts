import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { meanMs, median, OVERHEAD_HEADERS, overheadRow, printTable } from "./lib/stats.js";

/**
 * What the MCP proxy adds per message: the official SDK client calls a real SDK server over stdio,
 * directly and through `provenant mcp` (the built CLI), in interleaved rounds. Rows: an allowed
 * tools/call round trip, a held one (the guard answers, the server never sees it), tools/list, and
 * a 10 MB result. Medians of the rounds' means.
 */
const ROUNDS = 7;
const PER_ROUND = 200;
const BIG_ROUNDS = 5;

const root = fileURLToPath(new URL("..", import.meta.url));
const main = join(root, "dist/cli/main.js");
const server = join(root, "test/e2e/fixtures/mcp/rug-pull-server.mjs");

async function connect(dir: string, proxied: boolean, config: unknown, workspace: string): Promise<Client> {
  const configFile = join(dir, `config-${proxied ? "p" : "d"}-${Math.random().toString(16).slice(2)}.json`);
  writeFileSync(configFile, JSON.stringify(config));
  const serverArgs = [server, join(dir, "description.txt"), join(dir, "saved.txt")];
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: proxied ? [main, "mcp", "--name", "bench", "--workspace", workspace, "--config", configFile, "--", process.execPath, ...serverArgs] : serverArgs,
    stderr: "ignore",
    maxBufferSize: 64 * 1024 * 1024,
  });
  const client = new Client({ name: "bench", version: "1.0.0" });
  await client.connect(transport);
  return client;
}

async function main_(): Promise<void> {
  if (!existsSync(main)) throw new Error("dist/cli/main.js is missing: run `npm run build` (npm run bench does)");
  const dir = mkdtempSync(join(tmpdir(), "provenant-bench-mcp-"));
  writeFileSync(join(dir, "description.txt"), "Saves a note.");
  // Trusted output and a known tool: every call is allowed, the guard still decides each one.
  const allowed = await connect(dir, true, { toolOutputTaints: { "mcp__bench__*": "trusted" } }, join(dir, "ws-allowed"));
  // Every call held (confirm at trusted): the proxy answers from the guard, the server is not called.
  const held = await connect(dir, true, { toolOutputTaints: { "mcp__bench__*": "trusted" }, taintPolicy: { trusted: "confirm" } }, join(dir, "ws-held"));
  const direct = await connect(dir, false, {}, "");
  const call = (c: Client) => () => c.callTool({ name: "notes", arguments: { text: "x" } });
  const list = (c: Client) => () => c.listTools();
  const big = (c: Client) => () => c.callTool({ name: "big", arguments: { bytes: 10 * 1024 * 1024 } });
  for (const c of [allowed, held, direct]) for (let i = 0; i < 50; i++) await call(c)();
  const rows = { direct: [] as number[], allowed: [] as number[], held: [] as number[], listDirect: [] as number[], listProxy: [] as number[], bigDirect: [] as number[], bigProxy: [] as number[] };
  for (let r = 0; r < ROUNDS; r++) {
    rows.direct.push(await meanMs(PER_ROUND, call(direct)));
    rows.allowed.push(await meanMs(PER_ROUND, call(allowed)));
    rows.held.push(await meanMs(PER_ROUND, call(held)));
    rows.listDirect.push(await meanMs(PER_ROUND, list(direct)));
    rows.listProxy.push(await meanMs(PER_ROUND, list(allowed)));
  }
  for (let r = 0; r < BIG_ROUNDS; r++) {
    rows.bigDirect.push(await meanMs(1, big(direct)));
    rows.bigProxy.push(await meanMs(1, big(allowed)));
  }
  for (const c of [allowed, held, direct]) await c.close();
  rmSync(dir, { recursive: true, force: true });
  const d = median(rows.direct);
  const ld = median(rows.listDirect);
  const bd = median(rows.bigDirect);
  console.log(`SDK client to an SDK server over stdio; medians of ${ROUNDS} rounds x ${PER_ROUND} sequential requests (10 MB: ${BIG_ROUNDS} rounds x 1)\n`);
  printTable(
    OVERHEAD_HEADERS,
    [
      overheadRow("tools/call direct (baseline)", d, d),
      overheadRow("tools/call through the proxy, allowed", median(rows.allowed), d),
      overheadRow("tools/call through the proxy, held (answered by the proxy)", median(rows.held), d),
      overheadRow("tools/list direct (baseline)", ld, ld),
      overheadRow("tools/list through the proxy (pins checked, taint filter)", median(rows.listProxy), ld),
      overheadRow("10 MB result direct (baseline)", bd, bd),
      overheadRow("10 MB result through the proxy", median(rows.bigProxy), bd),
    ],
  );
}

await main_();
