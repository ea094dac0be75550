import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { stringify } from "yaml";
import { readSecretFile } from "../../src/broker/secret-file.js";

/**
 * Runs the broker daemon the way it is deployed: its own plain Node process running compiled
 * JavaScript (the daemon's modules bundled by esbuild, koffi loaded from node_modules), so the
 * bench's client and the daemon share no event loop and the daemon's memory is what a user would see.
 */
const ENTRY = `
import { loadBrokerConfig } from "./src/broker/broker-config.ts";
import { startBrokerDaemon } from "./src/broker/broker-daemon.ts";
import { stderrLog } from "./src/broker/broker-log.ts";
const [config, socketPath, secretFile] = process.argv.slice(2);
const daemon = await startBrokerDaemon({ config: loadBrokerConfig(config, { socketPath, secretFile }), log: stderrLog });
process.once("SIGTERM", () => void daemon.close().then(() => process.exit(0)));
`;

async function bundleDaemon(): Promise<string> {
  const root = join(import.meta.dirname, "..", "..");
  const out = join(root, "node_modules", ".cache", "provenant-bench", "broker-daemon.mjs");
  const esbuild = await import("esbuild");
  await esbuild.build({
    stdin: { contents: ENTRY, resolveDir: root, loader: "ts", sourcefile: "bench-daemon.ts" },
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    packages: "external",
    outfile: out,
    logLevel: "silent",
  });
  return out;
}

export interface DaemonProcess {
  readonly socketPath: string;
  readonly secret: Buffer;
  readonly pid: number;
  rssKiB(): number;
  stop(): Promise<void>;
}

export async function startDaemonProcess(tools: Record<string, unknown>, proxy: Record<string, unknown> = {}): Promise<DaemonProcess> {
  const dir = mkdtempSync(join(tmpdir(), "provenant-broker-bench-"));
  const socketPath = join(dir, "secrets.sock");
  const secretFile = join(dir, "auth");
  const configPath = join(dir, "wrappers.yaml");
  writeFileSync(configPath, stringify({ proxy: { temp_dir: join(dir, "tmp"), max_connections: 256, ...proxy }, tools }));
  const child: ChildProcess = spawn(process.execPath, [await bundleDaemon(), configPath, socketPath, secretFile], {
    stdio: ["ignore", "ignore", "pipe"],
  });
  await new Promise<void>((resolve, reject) => {
    let err = "";
    child.stderr?.on("data", (c: Buffer) => {
      err += c.toString();
      if (err.includes("daemon_listening")) resolve();
    });
    child.on("exit", (code) => reject(new Error(`daemon exited with ${code}: ${err}`)));
  });
  child.stderr?.resume();
  return {
    socketPath,
    secret: readSecretFile(secretFile),
    pid: child.pid as number,
    rssKiB: () => {
      const status = readFileSync(`/proc/${child.pid}/status`, "utf8");
      return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
    },
    stop: async () => {
      child.kill("SIGTERM");
      await new Promise((r) => child.once("exit", r));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The baseline the broker is measured against: `/bin/true` spawned straight from Node, pipes drained. */
export function spawnTrueDirectly(): Promise<void> {
  return new Promise((resolve, reject) => {
    const c = spawn("/bin/true", [], { stdio: ["pipe", "pipe", "pipe"] });
    c.stdout.resume();
    c.stderr.resume();
    c.stdin.end();
    c.on("error", reject);
    c.on("close", () => resolve());
  });
}

export function median(values: readonly number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 === 1 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
}

export function printTable(title: string, header: readonly string[], rows: readonly (readonly string[])[]): void {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (cells: readonly string[]): string => cells.map((c, i) => c.padEnd(widths[i] as number)).join("  ");
  console.log(`\n${title}`);
  console.log(line(header));
  console.log(widths.map((w) => "-".repeat(w)).join("  "));
  for (const r of rows) console.log(line(r));
}
