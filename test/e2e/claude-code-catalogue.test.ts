import { rmSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hostCatalogue } from "../../src/core/host-catalogue.js";
import { startAnthropicServer, type AnthropicServer } from "./harness/anthropic-server.js";
import { claudeHome, runClaude } from "./harness/claude-code.js";

const known = (tool: string): boolean => Object.hasOwn(hostCatalogue("claude-code").entries, tool);

/**
 * The catalogue is the host's: every tool the pinned Claude Code offers is classified, by the names
 * its `init` event lists and by the names its Messages API requests define (they differ: `Task`
 * is offered to the model as `Agent`).
 */
describe("the claude-code catalogue covers the pinned Claude Code", () => {
  let model: AnthropicServer;
  const home = claudeHome();
  beforeAll(async () => {
    model = await startAnthropicServer();
  });
  afterAll(async () => {
    await model.close();
    rmSync(home.home, { recursive: true, force: true });
  });

  it("knows every tool of a default session, as listed and as offered to the model", { timeout: 180_000 }, async () => {
    const run = await runClaude({ home, modelUrl: model.url, prompt: "say hello" });
    expect(run.code, run.stderr).toBe(0);
    const init = run.events.find((e) => e.type === "system" && e.subtype === "init");
    const listed = (init?.tools ?? []) as string[];
    const offered = model.requests.flatMap((r) => r.tools.map((t) => t.name));
    expect(listed).toContain("Bash");
    expect(offered).toContain("Read");
    expect([...new Set([...listed, ...offered])].filter((t) => !known(t))).toEqual([]);
  });

  it("names files in the parameters the catalogue reads them from", { timeout: 180_000 }, async () => {
    const catalogue = hostCatalogue("claude-code");
    const schemas = new Map(model.requests.flatMap((r) => r.tools).map((t) => [t.name, Object.keys(t.input_schema?.properties ?? {})]));
    expect(schemas.get("Bash")).toContain("command");
    for (const tool of ["Read", "Write", "Edit"]) expect(schemas.get(tool)).toContain("file_path");
    for (const [tool, params] of schemas) {
      if (catalogue.fileWriteTools.has(tool) || catalogue.fileReadTools.has(tool)) {
        expect(params.some((p) => ["file_path", "notebook_path", "path"].includes(p)), tool).toBe(true);
      }
      if (catalogue.execTools.has(tool)) expect(params, tool).toContain("command");
      if (Object.hasOwn(catalogue.searchTools, tool)) expect(params, tool).toEqual(expect.arrayContaining(["pattern", "path"]));
    }
  });
});
