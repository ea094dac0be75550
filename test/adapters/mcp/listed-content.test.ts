import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { isListingMethod, listedEntries, listingPinStores, pinnedForm, taskStatusMessages } from "../../../src/adapters/mcp/listed-content.js";

describe("listedEntries", () => {
  it("is null for a result that holds no array where the entries go", () => {
    for (const result of [null, "prompts", 3, [], [{ name: "a" }], {}, { prompts: null }, { prompts: { name: "a" } }, { resources: [] }]) {
      expect(listedEntries("prompts/list", result), JSON.stringify(result)).toBeNull();
    }
    expect(listedEntries("resources/templates/list", { resources: [] })).toBeNull();
  });

  it("keys each entry by the field its listing names it by, and keeps the nameless apart", () => {
    const listed = listedEntries("resources/list", { resources: [{ uri: "file:///a", name: "a" }, { name: "no uri" }, null, ["file:///b"], { uri: "" }, { uri: 7 }] });
    expect(listed?.entries.map((e) => e.name)).toEqual(["file:///a"]);
    expect(listed?.unnamed).toEqual([{ name: "no uri" }, null, ["file:///b"], { uri: "" }, { uri: 7 }]);
    expect(listedEntries("resources/templates/list", { resourceTemplates: [{ uriTemplate: "db://{t}" }] })?.entries.map((e) => e.name)).toEqual(["db://{t}"]);
    expect(listedEntries("prompts/list", { prompts: [{ name: "p", uri: "x" }] })?.entries.map((e) => e.name)).toEqual(["p"]);
  });

  it("knows the three listing methods and no other", () => {
    expect(["prompts/list", "resources/list", "resources/templates/list"].every(isListingMethod)).toBe(true);
    for (const m of ["tools/list", "resources/read", "toString", "__proto__", "constructor"]) expect(isListingMethod(m), m).toBe(false);
  });
});

describe("pinnedForm", () => {
  it("keeps only the shown fields that are present, and digests them so that any change to one changes the digest", () => {
    const base = pinnedForm({ name: "p", description: "d", icons: ["x"], _meta: { a: 1 } }, "name", ["name", "title", "description"]);
    expect(base?.definition).toEqual({ name: "p", description: "d" });
    expect(Object.keys(base?.definition ?? {})).toEqual(["name", "description"]);
    expect(base?.digest).toMatch(/^[0-9a-f]{64}$/u);
    // Fields it does not show, and their order, do not count.
    expect(pinnedForm({ description: "d", name: "p" }, "name", ["name", "title", "description"])?.digest).toBe(base?.digest);
    for (const changed of [{ name: "p", description: "d2" }, { name: "p", description: "d", title: "" }, { name: "p" }]) {
      expect(pinnedForm(changed, "name", ["name", "title", "description"])?.digest, JSON.stringify(changed)).not.toBe(base?.digest);
    }
  });

  it("digests a value with a lone surrogate too (not representable canonically), and tells such values apart", () => {
    const a = pinnedForm({ name: "p", description: "\ud800" }, "name", ["name", "description"]);
    const b = pinnedForm({ name: "p", description: "\udc00" }, "name", ["name", "description"]);
    expect(a?.digest).toMatch(/^[0-9a-f]{64}$/u);
    expect(a?.digest).not.toBe(b?.digest);
  });

  it("is null for an entry that is not an object or has no non-empty string key", () => {
    for (const entry of [null, undefined, "p", 1, ["p"], {}, { name: "" }, { name: 1 }, { name: null }]) expect(pinnedForm(entry, "name", ["name"]), JSON.stringify(entry)).toBeNull();
  });
});

describe("taskStatusMessages", () => {
  it("finds the status message of a task, and of each listed task, with its id", () => {
    expect(taskStatusMessages({ taskId: "T1", status: "working", statusMessage: "half done" })).toEqual([{ taskId: "T1", message: "half done" }]);
    expect(taskStatusMessages({ tasks: [{ taskId: "A", statusMessage: "a" }, { taskId: "B" }, { statusMessage: "c" }, null, "d", { taskId: 3, statusMessage: "e" }] })).toEqual([
      { taskId: "A", message: "a" },
      { taskId: null, message: "c" },
      { taskId: null, message: "e" },
    ]);
  });

  it("finds nothing in what carries no message", () => {
    for (const value of [null, undefined, "statusMessage", 3, [{ statusMessage: "x" }], {}, { statusMessage: "" }, { statusMessage: 5 }, { tasks: "x" }, { tasks: [[{ statusMessage: "x" }]] }]) {
      expect(taskStatusMessages(value), JSON.stringify(value)).toEqual([]);
    }
  });
});

describe("listingPinStores", () => {
  it("gives each listing its own pin file, and names the listing whose file is unusable in the report", () => {
    const ws = mkdtempSync(join(tmpdir(), "provenant-listing-pins-"));
    try {
      const pins = join(ws, ".provenance", "mcp-pins");
      mkdirSync(pins, { recursive: true });
      writeFileSync(join(pins, "srv.resources.json"), '{"version":1');
      const reports: string[] = [];
      const stores = listingPinStores(ws, "srv", (kind, detail, movedTo) => reports.push(`${kind}: ${detail} -> ${movedTo}`));
      expect(Object.fromEntries(Object.entries(stores).map(([kind, store]) => [kind, store.file]))).toEqual({
        prompts: join(pins, "srv.prompts.json"),
        resources: join(pins, "srv.resources.json"),
        "resource-templates": join(pins, "srv.resource-templates.json"),
      });
      const entry = { name: "file:///a", digest: "0".repeat(64), definition: {} };
      // The unusable file is set aside and its listing starts with no pins: every entry is held.
      expect([...stores.resources.observe([entry], { first: true, last: true }, new Date())]).toEqual(["file:///a"]);
      expect(stores.prompts.observe([{ ...entry, name: "p" }], { first: true, last: true }, new Date()).size).toBe(0);
      expect(reports).toHaveLength(1);
      expect(reports[0]).toMatch(/^resources: not JSON .* -> .*srv\.resources\.json.*corrupt/);
    } finally {
      rmSync(ws, { recursive: true, force: true });
    }
  });
});
