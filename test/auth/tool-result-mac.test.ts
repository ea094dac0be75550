import { describe, expect, it } from "vitest";
import { checkGroundedClaims } from "../../src/auth/grounded-claims.js";
import { KeyRing } from "../../src/auth/key-ring.js";
import { ToolResultMacs } from "../../src/auth/tool-result-mac.js";
import { katRing, seededRandom } from "./helpers.js";

describe("tool-result MACs", () => {
  it("matches the documented known-answer vector (independent implementation)", () => {
    const macs = new ToolResultMacs(katRing());
    const seal = macs.seal("s1", "web_fetch", { status: 200, body: "ok" });
    expect(seal).toEqual({ seq: 1, keyId: "k0", mac: "a0a44dfc99a6961bd9db01035cf678bef0be6d51e17f66bc2d8104f42e5430de" });
  });

  it("seq is per session, monotonic, without gaps", () => {
    const macs = new ToolResultMacs(katRing());
    expect([1, 2, 3].map(() => macs.seal("a", "t", null).seq)).toEqual([1, 2, 3]);
    expect(macs.seal("b", "t", null).seq).toBe(1);
    expect(macs.seal("a", "t", null).seq).toBe(4);
  });

  it("a sealed result verifies once; key order in the result does not matter (canonical JSON)", () => {
    const macs = new ToolResultMacs(katRing());
    const seal = macs.seal("s1", "read_file", { path: "/a", text: "hello" });
    expect(macs.verify("s1", "read_file", { text: "hello", path: "/a" }, seal)).toEqual({ ok: true, seq: 1, outOfOrder: false });
    expect(macs.verify("s1", "read_file", { text: "hello", path: "/a" }, seal)).toMatchObject({ ok: false, check: "reused-seq" });
    expect([...macs.verifiedSeqs("s1")]).toEqual([1]);
  });

  const failures: [string, (m: ToolResultMacs) => ReturnType<ToolResultMacs["verify"]>, string][] = [
    ["no MAC (a fabricated result)", (m) => m.verify("s1", "read_file", { text: "x" }, undefined), "no-seal"],
    ["altered result", (m) => m.verify("s1", "read_file", { text: "y" }, m.seal("s1", "read_file", { text: "x" })), "bad-mac"],
    ["other tool name", (m) => m.verify("s1", "write_file", { text: "x" }, m.seal("s1", "read_file", { text: "x" })), "bad-mac"],
    ["other session", (m) => m.verify("s2", "read_file", { text: "x" }, m.seal("s1", "read_file", { text: "x" })), "bad-mac"],
    ["other seq", (m) => m.verify("s1", "read_file", { text: "x" }, { ...m.seal("s1", "read_file", { text: "x" }), seq: 7 }), "bad-mac"],
    ["malformed MAC", (m) => m.verify("s1", "read_file", { text: "x" }, { ...m.seal("s1", "read_file", { text: "x" }), mac: "zz" }), "bad-mac"],
    ["negative seq", (m) => m.verify("s1", "t", 1, { seq: -1, keyId: "k0", mac: "0".repeat(64) }), "bad-mac"],
    ["unknown key", (m) => m.verify("s1", "t", 1, { seq: 1, keyId: "nope", mac: "0".repeat(64) }), "unknown-key"],
    ["result that is not JSON", (m) => m.verify("s1", "t", { n: Number.NaN }, { seq: 1, keyId: "k0", mac: "0".repeat(64) }), "not-json"],
    ["tool name with the delimiter", (m) => m.verify("s1", "a|1", 1, { seq: 1, keyId: "k0", mac: "0".repeat(64) }), "bad-tool-name"],
  ];
  for (const [name, run, check] of failures) {
    it(`rejects ${name}`, () => {
      expect(run(new ToolResultMacs(katRing()))).toMatchObject({ ok: false, check });
    });
  }

  it("a tool name holding the delimiter cannot be sealed (it would make the MAC input ambiguous)", () => {
    expect(() => new ToolResultMacs(katRing()).seal("s1", "a|1", {})).toThrow(/'\|'/);
  });

  it("reports results fed back out of order", () => {
    const macs = new ToolResultMacs(katRing());
    const one = macs.seal("s1", "t", 1);
    const two = macs.seal("s1", "t", 2);
    expect(macs.verify("s1", "t", 2, two)).toEqual({ ok: true, seq: 2, outOfOrder: true });
    expect(macs.verify("s1", "t", 1, one)).toEqual({ ok: true, seq: 1, outOfOrder: true });
  });

  it("results sealed before a key rotation still verify", () => {
    const random = seededRandom("tr");
    const ring = KeyRing.generate(random, "t0");
    const macs = new ToolResultMacs(ring);
    const seal = macs.seal("s1", "t", "before");
    ring.rotate(random, "t1");
    const after = macs.seal("s1", "t", "after");
    expect(after.keyId).toBe(ring.currentId);
    expect(macs.verify("s1", "t", "before", seal).ok).toBe(true);
    expect(macs.verify("s1", "t", "after", after).ok).toBe(true);
  });
});

describe("[G]/[I] claims", () => {
  it("passes grounded claims that cite verified results and inferred claims", () => {
    const r = checkGroundedClaims("Balance is 12 EUR [G:3]. Both agree [G: 3, 4]. Probably fine [I].", new Set([3, 4]));
    expect(r.claims.map((c) => [c.kind, c.seqs])).toEqual([
      ["G", [3]],
      ["G", [3, 4]],
      ["I", []],
    ]);
    expect(r.flagged).toEqual([]);
  });

  it("flags a [G] that cites nothing, or a result that never verified", () => {
    const r = checkGroundedClaims("The file exists [G]. It says deploy [G:12]. And [G:3,99].", new Set([3]));
    expect(r.flagged.map((f) => [f.tag, f.problem, f.missing])).toEqual([
      ["[G]", "uncited", []],
      ["[G:12]", "unverified", [12]],
      ["[G:3,99]", "unverified", [99]],
    ]);
  });

  it("a [G] citing a fabricated result is flagged end to end", () => {
    const macs = new ToolResultMacs(katRing());
    const real = macs.seal("s1", "read_file", "real");
    expect(macs.verify("s1", "read_file", "real", real).ok).toBe(true);
    // The model invents result #2 in its text; it was never sealed, so nothing verified it.
    const report = checkGroundedClaims("File A is fine [G:1]; file B says wire money [G:2].", macs.verifiedSeqs("s1"));
    expect(report.flagged.map((f) => f.tag)).toEqual(["[G:2]"]);
  });
});
