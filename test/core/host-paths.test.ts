import fc from "fast-check";
import { mkdirSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { hostPathReadings, hostPatchHeaderPaths } from "../../src/core/host-paths.js";
import { writeTargets } from "../../src/core/write-targets.js";
import { extractPatchTargets } from "../../src/sig/patch-targets.js";
import { openClawFunction } from "./openclaw-host-module.js";
import { tempDir } from "../temp-dirs.js";

const HOME = resolve(process.env["HOME"] ?? "/root");

describe("paths read as OpenClaw reads them", () => {
  it("a leading @ is dropped, and the literal @ file is a second reading", () => {
    expect(hostPathReadings("@SOUL.md", "tool", HOME)).toEqual(["SOUL.md", "./@SOUL.md"]);
    expect(hostPathReadings("@@SOUL.md", "tool", HOME)).toEqual(["./@SOUL.md", "./@@SOUL.md"]);
    expect(hostPathReadings("@/abs/SOUL.md", "tool", HOME)).toEqual(["/abs/SOUL.md"]);
    expect(hostPathReadings("@~/SOUL.md", "tool", HOME)).toEqual([`${HOME}/SOUL.md`]);
    // `@` alone is the working directory itself.
    expect(hostPathReadings("@", "tool", HOME)).toEqual(["."]);
  });

  it("~ is home, file:// is a path for tools and a name in patches, repairs are applied", () => {
    expect(hostPathReadings("~", "tool", HOME)).toEqual([HOME]);
    expect(hostPathReadings("~/ws/SOUL.md", "patch", HOME)).toEqual([`${HOME}/ws/SOUL.md`]);
    expect(hostPathReadings("file:///ws/%53OUL.md", "tool", HOME)).toEqual(["/ws/SOUL.md"]);
    expect(hostPathReadings("@file:///ws/SOUL.md", "tool", HOME)).toEqual(["/ws/SOUL.md"]);
    expect(hostPathReadings("file:///ws/SOUL.md", "patch", HOME)).toEqual(["file:///ws/SOUL.md"]);
    expect(hostPathReadings("file://remote/x", "tool", HOME)).toEqual(["file://remote/x"]);
    expect(hostPathReadings("SOUL.md</arg_value>>", "tool", HOME)).toEqual(["SOUL.md", "SOUL.md</arg_value>>"]);
  });

  it("patch headers are found indented and with trailing spaces, as the host's grammar finds them", () => {
    const patch = "*** Begin Patch\n   *** Update File: @SOUL.md  \n@@\n-a\n+b\n*** Add File: notes.md\n+x\n*** End Patch";
    expect(hostPatchHeaderPaths(patch)).toEqual(["@SOUL.md", "notes.md"]);
    expect(extractPatchTargets(patch)).not.toContain("@SOUL.md");
    expect(writeTargets("apply_patch", { input: patch }, HOME, extractPatchTargets)).toEqual(["SOUL.md", "./@SOUL.md", "notes.md"]);
    expect(writeTargets("write", { path: "@MEMORY.md", content: "x" }, HOME)).toEqual(["MEMORY.md", "./@MEMORY.md"]);
  });

  describe("against the pinned OpenClaw's own resolver", () => {
    type Resolve = (path: string, cwd: string) => string;
    type PatchPaths = (input: string, options: { cwd: string }) => string[];
    let resolveLocal: Resolve;
    let patchPaths: PatchPaths;
    beforeAll(async () => {
      resolveLocal = await openClawFunction<Resolve>("src/agents/sessions/tools/path-utils.ts", "resolveLocalPathToCwd");
      patchPaths = await openClawFunction<PatchPaths>("src/agents/apply-patch-paths.ts", "extractApplyPatchTargetPaths");
    }, 600_000);

    const part = fc.constantFrom("@", "@@", "~", "~/", "/", "./", "../", "file://", "file:///", "%53", "%2F", "SOUL.md", "memory", "a b", "x</arg_value>>");
    const rawPath = fc.array(part, { minLength: 1, maxLength: 5 }).map((parts) => parts.join(""));

    function withAndWithoutLiteral(check: (cwd: string) => void): void {
      const plain = tempDir("provenant-hostpath-");
      check(plain);
      // The host keeps `@x` literal when `./@x` (or its first directory) exists.
      const literal = tempDir("provenant-hostpath-");
      for (const name of ["@SOUL.md", "@@SOUL.md", "@memory", "@~", "@a b"]) writeFileSync(join(literal, name), "");
      mkdirSync(join(literal, "@x"));
      check(literal);
    }

    it("every path a file tool resolves to is one of our readings", () => {
      withAndWithoutLiteral((cwd) =>
        fc.assert(
          fc.property(rawPath, (raw) => {
            // An absolute result comes back as written (`/a//b`); the file it names is the normalised one.
            const host = resolve(resolveLocal(raw, cwd));
            const ours = hostPathReadings(raw, "tool", HOME).map((r) => resolve(cwd, r));
            expect(ours).toContain(host);
          }),
          { numRuns: 500 },
        ),
      );
    });

    it("every path an apply_patch header resolves to is one of our write targets", () => {
      withAndWithoutLiteral((cwd) =>
        fc.assert(
          fc.property(fc.array(fc.tuple(fc.constantFrom("Add", "Update", "Delete"), fc.constantFrom("", "  "), rawPath), { minLength: 1, maxLength: 3 }), (files) => {
            const patch = ["*** Begin Patch", ...files.flatMap(([kind, indent, path]) => [`${indent}*** ${kind} File: ${path}`, "+x"]), "*** End Patch"].join("\n");
            const ours = writeTargets("apply_patch", { input: patch }, HOME, extractPatchTargets).map((r) => resolve(cwd, r));
            // The host keeps a trailing slash that names the same place.
            for (const host of patchPaths(patch, { cwd })) expect(ours).toContain(host.length > 1 ? host.replace(/\/+$/, "") : host);
          }),
          { numRuns: 300 },
        ),
      );
    });
  });
});
