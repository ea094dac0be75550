import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { initMcp } from "../../src/cli/init-mcp.js";
import { openClawDecides } from "../../src/cli/mcp.js";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), "provenant-init-mcp-"));
  dirs.push(dir);
  return dir;
};

/** OpenClaw's configuration with the given `plugins` section and one stdio server. */
function openClawConfig(plugins: unknown): string {
  const file = join(tempDir(), "openclaw.json");
  writeFileSync(file, `${JSON.stringify({ plugins, mcp: { servers: { notes: { command: "uvx", args: ["mcp-server-notes"] } } } }, null, 2)}\n`);
  return file;
}

/** As `openclaw plugins install` leaves it. */
const INSTALLED = { load: { paths: ["/opt/provenant"] }, entries: { provenant: { enabled: true } } };

function logged() {
  const lines: string[] = [];
  return { lines, logger: { info: (m: string) => lines.push(m), warn: (m: string) => lines.push(m), error: (m: string) => lines.push(m) } };
}

describe("an OpenClaw whose provenant plugin decides its MCP servers' calls", () => {
  it("init mcp --client openclaw names the configuration in every proxy, and says which decides now", () => {
    const withPlugin = openClawConfig(INSTALLED);
    expect(initMcp({ client: "openclaw", config: withPlugin }).join("\n")).toMatch(/the provenant plugin of this OpenClaw decides their calls, while this file enables it/);
    const args = (JSON.parse(readFileSync(withPlugin, "utf8")) as { mcp: { servers: { notes: { args: string[] } } } }).mcp.servers.notes.args;
    expect(args.slice(args.indexOf("mcp"))).toEqual(["mcp", "--name", "notes", "--decided-by-openclaw", withPlugin, "--", "uvx", "mcp-server-notes"]);
    const without = openClawConfig({ ...INSTALLED, deny: ["provenant"] });
    expect(initMcp({ client: "openclaw", config: without }).join("\n")).toMatch(/the provenant plugin is not enabled in this OpenClaw: each proxy decides .* until this file enables the plugin/);
    expect(readFileSync(without, "utf8")).toContain("--decided-by-openclaw");
  });

  it("the proxy reads the configuration as it starts: the plugin decides only while the file enables it; any file it cannot read leaves the calls to the proxy", () => {
    const enabled = openClawConfig(INSTALLED);
    const { lines, logger } = logged();
    expect(openClawDecides(enabled, logger)).toBe(true);
    expect(lines).toEqual([`the provenant plugin of ${enabled} decides this server's calls; the proxy pins what the server writes`]);
    // Disabled since install: the proxy decides again.
    writeFileSync(enabled, JSON.stringify({ plugins: { entries: { provenant: { enabled: false } } } }));
    expect(openClawDecides(enabled, logger)).toBe(false);
    expect(lines.at(-1)).toBe(`${enabled}: it does not enable the provenant plugin; the proxy decides this server's calls`);
    // A link to an enabling file is read through.
    const dir = tempDir();
    const link = join(dir, "linked.json");
    symlinkSync(openClawConfig(INSTALLED), link);
    expect(openClawDecides(link, logger)).toBe(true);
    // Comments (JSON5, which OpenClaw reads), nothing there, a directory, a FIFO (read without waiting on a writer).
    const commented = join(dir, "commented.json");
    writeFileSync(commented, `// mine\n${JSON.stringify({ plugins: INSTALLED })}`);
    const fifo = join(dir, "fifo.json");
    execFileSync("mkfifo", [fifo]);
    for (const [path, why] of [
      [commented, /^it could not be read as JSON \(.+\)$/],
      [join(dir, "missing.json"), /^it is not a file$/],
      [dir, /^it is not a file$/],
      [fifo, /^it is not a file$/],
    ] as const) {
      expect(openClawDecides(path, logger), path).toBe(false);
      const line = lines.at(-1) ?? "";
      expect(line).not.toContain("\n");
      expect(line.startsWith(`${path}: `) && line.endsWith("; the proxy decides this server's calls")).toBe(true);
      expect(line.slice(path.length + 2, -"; the proxy decides this server's calls".length)).toMatch(why);
    }
  });
});
