import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync, existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { TOOL_CATALOGUE } from "../../src/core/tool-catalogue.js";
import { openClawInstall, REPO } from "./harness/openclaw.js";

const known = (tool: string): boolean => Object.hasOwn(TOOL_CATALOGUE, tool);

/**
 * The catalogue is the host's: every tool the pinned OpenClaw can offer is classified. The core
 * list comes from the program itself, the bundled plugins' from their manifests; the tools a real
 * agent run is offered (Tool Search's meta-tools included) are checked in openclaw-redteam.test.ts.
 */
describe("the tool catalogue covers the pinned OpenClaw", () => {
  it("knows every core tool the program can assemble", () => {
    const { node, entry } = openClawInstall();
    const dist = join(dirname(entry), "dist");
    const out = execFileSync(node, [join(REPO, "test/e2e/fixtures/list-core-tools.mjs"), dist], { encoding: "utf8", timeout: 60_000 });
    const core = JSON.parse(out) as string[];
    expect(core.length).toBeGreaterThan(40);
    expect(core.filter((t) => !known(t))).toEqual([]);
  });

  it("knows every tool a bundled plugin declares", () => {
    const { entry } = openClawInstall();
    const extensions = join(dirname(entry), "dist", "extensions");
    const declared: string[] = [];
    for (const plugin of readdirSync(extensions)) {
      const manifest = join(extensions, plugin, "openclaw.plugin.json");
      if (!existsSync(manifest)) continue;
      const tools = (JSON.parse(readFileSync(manifest, "utf8")) as { contracts?: { tools?: unknown } }).contracts?.tools;
      if (Array.isArray(tools)) declared.push(...tools.filter((t): t is string => typeof t === "string"));
    }
    expect(declared).toContain("browser");
    expect(declared.filter((t) => !known(t))).toEqual([]);
  });

  it("takes as untrusted the output of every tool the host itself marks as network content", () => {
    // The pinned host tags a tool whose result is someone else's content with
    // `resultContentSource: "network"` (its own turn-taint bookkeeping). Read from the program: the
    // string-literal `name` of the object each tag sits in.
    const { entry } = openClawInstall();
    const dist = join(dirname(entry), "dist");
    const files = [
      ...readdirSync(dist).filter((f) => f.endsWith(".mjs")).map((f) => join(dist, f)),
      ...readdirSync(join(dist, "extensions")).map((p) => join(dist, "extensions", p, "index.js")).filter((f) => existsSync(f)),
    ];
    const network = new Set<string>();
    for (const path of files) {
      const text = readFileSync(path, "utf8");
      for (const tag of text.matchAll(/resultContentSource:\s*"network"/g)) {
        const before = text.slice(Math.max(0, (tag.index ?? 0) - 3000), tag.index);
        const names = [...before.matchAll(/\bname:\s*("([A-Za-z0-9_-]+)"|[A-Za-z_$][\w$]*)/g)];
        const last = names[names.length - 1];
        if (last?.[2] !== undefined) network.add(last[2]);
      }
    }
    expect([...network]).toEqual(expect.arrayContaining(["web_fetch", "web_search", "browser"]));
    expect([...network].filter((t) => TOOL_CATALOGUE[t]?.output !== "untrusted").sort()).toEqual([]);
  });
});
