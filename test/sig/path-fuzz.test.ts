import { writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { GateCall } from "../../src/core/gate.js";
import { RealPathResolver } from "../../src/sig/real-path.js";
import { SigRuntime } from "../../src/sig/runtime.js";
import { SigAuditLog } from "../../src/sig/sig-audit-log.js";
import { signFile } from "../../src/sig/sign-file.js";
import { fixedClock, ProjectFixture, SOUL_POLICY_CONFIG } from "./project-fixture.js";

let fixture: ProjectFixture;
let rt: SigRuntime;

beforeAll(() => {
  fixture = new ProjectFixture();
  fixture.config(SOUL_POLICY_CONFIG);
  fixture.write("soul.md", "soul");
  fixture.write("notes/a.txt", "a");
  fixture.write("llm/prompts/x.txt", "x");
  signFile(fixture.context(), "soul.md", { identity: "workspace:init" });
  rt = new SigRuntime({ projectRoot: fixture.root, clock: fixedClock(), caseInsensitive: false });
});
afterAll(() => fixture.remove());

const write = (path: unknown): GateCall => ({ sessionId: "s", turnId: "t", tool: "write", params: { path }, taint: "trusted", senderIsOwner: true });

describe("target resolution (fast-check)", () => {
  const segment = fc.constantFrom(".", "..", "", "notes", "llm", "prompts", "soul.md", "missing", "SOUL.md", ".sig");

  it("blocks a relative path exactly when it lands on soul.md (no symlinks here, so lexical = kernel)", () => {
    fc.assert(
      fc.property(fc.array(segment, { minLength: 1, maxLength: 7 }), (parts) => {
        const path = parts.join("/");
        fc.pre(path !== "");
        const lands = resolve(fixture.root, path);
        const verdict = rt.mutationGate.check(write(path));
        if (lands === join(fixture.root, "soul.md")) expect(verdict?.rule).toBe("sig.mutation.protected_file");
        if (verdict?.rule === "sig.mutation.protected_file") expect(lands).toBe(join(fixture.root, "soul.md"));
        if (lands === join(fixture.root, ".sig") || lands.startsWith(join(fixture.root, ".sig") + "/")) {
          expect(verdict?.rule).toBe("sig.mutation.signature_store");
        }
      }),
      { numRuns: 3000 },
    );
  });

  it("never throws on hostile paths or parameter values", () => {
    const resolver = new RealPathResolver(fixture.root, { caseInsensitive: false });
    fc.assert(
      fc.property(fc.string({ unit: "binary", maxLength: 80 }), (path) => {
        const r = resolver.resolve(path);
        expect(["inside", "outside", "unresolvable"]).toContain(r.kind);
        if (r.kind === "inside") expect(r.path.startsWith("../")).toBe(false);
        rt.mutationGate.check(write(path));
      }),
      { numRuns: 2000 },
    );
    fc.assert(
      fc.property(fc.anything(), (value) => {
        rt.mutationGate.check(write(value));
        rt.mutationGate.check({ ...write(undefined), tool: "apply_patch", params: { input: value } as Record<string, unknown> });
      }),
      { numRuns: 500 },
    );
  });
});

describe("audit log reading (fast-check)", () => {
  it("never throws on whatever the file holds", () => {
    const path = fixture.path(".sig/audit-fuzz.jsonl");
    const log = new SigAuditLog(path, fixedClock());
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.string({ unit: "binary" }), fc.json()), { maxLength: 5 }), (lines) => {
        writeFileSync(path, lines.join("\n"));
        for (const e of log.read()) expect(typeof e.event).toBe("string");
      }),
      { numRuns: 300 },
    );
  });
});
