import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { initMcp, runsProvenantPlugin } from "../../src/cli/init-mcp.js";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** OpenClaw's configuration with the given `plugins` section and one stdio server. */
function openClawConfig(plugins: unknown): string {
  const dir = mkdtempSync(join(tmpdir(), "provenant-init-mcp-"));
  dirs.push(dir);
  const file = join(dir, "openclaw.json");
  writeFileSync(file, `${JSON.stringify({ plugins, mcp: { servers: { notes: { command: "uvx", args: ["mcp-server-notes"] } } } }, null, 2)}\n`);
  return file;
}

const INSTALLED = { load: { paths: ["/opt/provenant"] }, entries: { provenant: { enabled: true } } };

describe("init mcp --client openclaw", () => {
  it("leaves the calls to the provenant plugin only where OpenClaw's configuration enables it", () => {
    expect(runsProvenantPlugin({ plugins: INSTALLED })).toBe(true);
    expect(runsProvenantPlugin({ plugins: { ...INSTALLED, allow: ["telegram", "provenant"] } })).toBe(true);
    // Not installed, switched off, or kept out by a list: the proxies decide the calls themselves.
    for (const plugins of [
      undefined,
      {},
      { entries: { other: { enabled: true } } },
      { ...INSTALLED, enabled: false },
      { entries: { provenant: { enabled: false } } },
      { entries: { provenant: true } },
      { entries: { provenant: { config: {} } } },
      { ...INSTALLED, allow: ["telegram"] },
      { ...INSTALLED, allow: [] },
      { ...INSTALLED, deny: ["provenant"] },
      { entries: Object.create({ provenant: { enabled: true } }) as unknown },
    ]) {
      expect(runsProvenantPlugin({ plugins }), JSON.stringify(plugins)).toBe(false);
    }
    expect(runsProvenantPlugin(null)).toBe(false);
  });

  it("writes --no-call-decisions for an OpenClaw whose provenant plugin decides, says which, and not for one without it", () => {
    const withPlugin = openClawConfig(INSTALLED);
    const said = initMcp({ client: "openclaw", config: withPlugin });
    expect(said.join("\n")).toMatch(/the provenant plugin of this OpenClaw decides their calls/);
    const args = (JSON.parse(readFileSync(withPlugin, "utf8")) as { mcp: { servers: { notes: { args: string[] } } } }).mcp.servers.notes.args;
    expect(args.slice(args.indexOf("mcp"))).toEqual(["mcp", "--name", "notes", "--no-call-decisions", "--", "uvx", "mcp-server-notes"]);

    const without = openClawConfig({ ...INSTALLED, deny: ["provenant"] });
    expect(initMcp({ client: "openclaw", config: without }).join("\n")).toMatch(/the provenant plugin is not enabled in this OpenClaw: each proxy decides/);
    expect(readFileSync(without, "utf8")).not.toContain("--no-call-decisions");
  });
});
