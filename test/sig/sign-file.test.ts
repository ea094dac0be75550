import { readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { expandFileArguments } from "../../src/sig/file-globs.js";
import { signFile } from "../../src/sig/sign-file.js";
import { updateAndSign } from "../../src/sig/update-and-sign.js";
import { verifyFile } from "../../src/sig/verify-file.js";
import { fixedClock, ProjectFixture } from "./project-fixture.js";

/** Signing by the owner (`provenant sig sign`) and the file arguments it and the full `verify` expand. */
let fixture: ProjectFixture;
beforeEach(() => {
  fixture = new ProjectFixture();
  fixture.config({ version: 1, files: { "soul.md": { mutable: true } } });
  fixture.write("soul.md", "one\n");
});
afterEach(() => fixture.remove());

describe("signFile", () => {
  it("re-signing a file whose chain has entries appends one, so the chain still ends at the signature", () => {
    const ctx = fixture.context({ clock: fixedClock() });
    signFile(ctx, "soul.md", { identity: "owner:a" });
    updateAndSign(ctx, "soul.md", "two\n", { identity: "owner:a", sourceType: "signed_message", reason: "r" });
    const chainPath = fixture.path(".sig/chains/soul.md.chain.jsonl");
    writeFileSync(chainPath, readFileSync(chainPath, "utf8").trimEnd());
    fixture.write("soul.md", "three\n");
    signFile(ctx, "soul.md", { identity: "owner:b" });
    const lines = readFileSync(chainPath, "utf8").split("\n").filter((l) => l !== "");
    expect(lines).toHaveLength(2);
    expect(JSON.parse(lines[1] ?? "")).toMatchObject({ signedBy: "owner:b", provenance: { sourceType: "signed_template", sourceId: "soul.md", reason: "re-signed with sign" } });
    expect(verifyFile(ctx, "soul.md")).toMatchObject({ verified: true, chain: { length: 2, valid: true } });
    // Signing the same content again adds nothing.
    signFile(ctx, "soul.md", { identity: "owner:b" });
    expect(readFileSync(chainPath, "utf8").split("\n").filter((l) => l !== "")).toHaveLength(2);
  });

  it("a file with no chain, or an empty one, gets none", () => {
    const ctx = fixture.context({ clock: fixedClock() });
    signFile(ctx, "soul.md", { identity: "owner:a" });
    fixture.write(".sig/chains/soul.md.chain.jsonl", "");
    fixture.write("soul.md", "changed\n");
    signFile(ctx, "soul.md", { identity: "owner:a" });
    expect(readFileSync(fixture.path(".sig/chains/soul.md.chain.jsonl"), "utf8")).toBe("");
  });

  it("an empty identity falls back to the configuration's, then to the caller's fallback", () => {
    fixture.config({ version: 1, sign: { identity: "config:owner" } });
    expect(signFile(fixture.context(), "soul.md", { identity: "" }).signedBy).toBe("config:owner");
    fixture.config({ version: 1 });
    expect(signFile(fixture.context(), "soul.md", { identity: "", fallbackIdentity: "cli:me" }).signedBy).toBe("cli:me");
    expect(signFile(fixture.context(), "soul.md", {}).signedBy).toBe("unknown");
    expect(signFile(fixture.context(), "soul.md", {})).not.toHaveProperty("templateEngine");
  });
});

describe("expandFileArguments", () => {
  it("walks a glob's base into subdirectories, in order, skipping dot files, .git, node_modules and .sig, and what is excluded", () => {
    for (const path of ["p/b.txt", "p/a/c.txt", "p/.hidden.txt", "p/node_modules/m.txt", "p/.git/g.txt", "p/skip.txt", "p/a/skip.txt"]) fixture.write(path, "x");
    symlinkSync(fixture.path("soul.md"), fixture.path("p/link.txt"));
    const rel = (files: string[]) => files.map((f) => f.slice(fixture.root.length + 1));
    expect(rel(expandFileArguments(fixture.root, ["p/**"]))).toEqual(["p/a/c.txt", "p/a/skip.txt", "p/b.txt", "p/link.txt", "p/skip.txt"]);
    expect(rel(expandFileArguments(fixture.root, ["p/**"], ["**/skip.txt"]))).toEqual(["p/a/c.txt", "p/b.txt", "p/link.txt"]);
    expect(rel(expandFileArguments(fixture.root, ["p/*.txt", "missing.md"]))).toEqual(["p/b.txt", "p/link.txt", "p/skip.txt", "missing.md"]);
  });
});
