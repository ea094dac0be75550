import { readFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type ChainEntry, type EntryType, chainHash, nextEntry } from "../../src/ledger/chain-entry.js";
import { ChainVerifier } from "../../src/ledger/chain-verifier.js";
import { canonicalJSON } from "../../src/ledger/canonical-json.js";
import { encodeEntryLine, parseEntryLine } from "../../src/ledger/entry-line.js";

interface Vector {
  name: string;
  prevHash: string;
  seq: number;
  type: EntryType;
  data: Record<string, unknown>;
  hash: string;
}
const vectors = (
  JSON.parse(readFileSync(join(import.meta.dirname, "../../../shared/corpora/ledger/rfc001-chain-vectors.json"), "utf8")) as {
    vectors: Vector[];
  }
).vectors;

function vector(name: string): Vector {
  const v = vectors.find((x) => x.name === name);
  if (v === undefined) throw new Error(`no vector ${name}`);
  return v;
}

function verify(entries: readonly ChainEntry[]): ReturnType<ChainVerifier["accept"]> {
  const verifier = new ChainVerifier(0, undefined);
  for (const entry of entries) {
    const fault = verifier.accept(entry, canonicalJSON(entry.data));
    if (fault !== undefined) return fault;
  }
  return undefined;
}

describe("the RFC-001 vectors", () => {
  it("has all four", () => expect(vectors.map((v) => v.name)).toEqual(["genesis", "T4 append", "T5 tamper", "T6 gap"]));

  it.each(vectors.map((v) => [v.name, v] as const))("%s hashes to the published value", (_, v) => {
    expect(chainHash(v.prevHash, v.seq, v.type, v.data)).toBe(v.hash);
  });

  it("genesis then T4 is a valid chain, built by nextEntry", () => {
    const genesis = nextEntry(undefined, "GENESIS", vector("genesis").data);
    const t4 = nextEntry(genesis, "CLAIM", vector("T4 append").data);
    expect([genesis.hash, t4.hash]).toEqual([vector("genesis").hash, vector("T4 append").hash]);
    expect(verify([genesis, t4])).toBeUndefined();
  });

  it("T5: T4's hash over T5's data is corrupt at seq 1", () => {
    const g = vector("genesis");
    const t4 = vector("T4 append");
    const tampered = { ...t4, data: vector("T5 tamper").data };
    const fault = verify([g, tampered]);
    expect(fault?.seq).toBe(1);
    expect(fault?.reason).toMatch(/^hash mismatch: stored 67a19fda.*recomputed fcf98373/);
  });

  it("T6: seq 3 after seq 1 is rejected with expected seq=2", () => {
    const fault = verify([vector("genesis"), vector("T4 append"), vector("T6 gap")]);
    expect(fault).toEqual({ chain: 0, seq: 2, reason: "expected seq=2, found seq=3 (gap)" });
  });
});

describe("chain rules", () => {
  const g = nextEntry(undefined, "GENESIS", { created: "2026-01-01T00:00:00Z" });
  const a = nextEntry(g, "CLAIM", { n: 1 });

  it("refuses to build GENESIS anywhere but seq 0, or anything else at seq 0", () => {
    expect(() => nextEntry(g, "GENESIS", {})).toThrow("GENESIS may only open a chain");
    expect(() => nextEntry(undefined, "CLAIM", {})).toThrow("a chain must open with a GENESIS entry");
  });

  it("flags a duplicate, a bad genesis prevHash, a broken link and a second GENESIS", () => {
    expect(verify([g, a, a])?.reason).toBe("expected seq=2, found seq=1 (duplicate or reordered entry)");
    expect(verify([{ ...g, prevHash: "1".repeat(64) }])?.reason).toBe("genesis prevHash is not 32 zero bytes");
    const b = nextEntry(a, "META", { n: 2 });
    expect(verify([g, a, { ...b, prevHash: g.hash }])).toMatchObject({ seq: 2, reason: "prevHash does not match the hash of seq 1" });
    const rogue = { seq: 1, type: "GENESIS" as const, data: {}, prevHash: g.hash, hash: chainHash(g.hash, 1, "GENESIS", {}) };
    expect(verify([g, rogue])?.reason).toBe("GENESIS entry inside a chain");
  });

  it("a chain that opens with anything but GENESIS says so", () => {
    const claim = { seq: 0, type: "CLAIM" as const, data: {}, prevHash: "0".repeat(64), hash: chainHash("0".repeat(64), 0, "CLAIM", {}) };
    expect(verify([claim])).toEqual({ chain: 0, seq: 0, reason: "chain does not open with GENESIS" });
  });

  it("skip takes a verified segment whole only where it starts exactly at the verifier's place", () => {
    const b = nextEntry(a, "META", { n: 2 });
    const c = nextEntry(b, "CLAIM", { n: 3 });
    const verifier = new ChainVerifier(0, undefined);
    verifier.accept(g, canonicalJSON(g.data));
    verifier.accept(a, canonicalJSON(a.data));
    expect(verifier.skip(3, b.hash, 1, c.hash)).toBe(false); // not the next seq
    expect(verifier.skip(3, a.hash, 1, c.hash)).toBe(false); // the right link, at the wrong seq
    expect(verifier.skip(2, g.hash, 1, c.hash)).toBe(false); // prevHash is not the last hash
    expect(verifier.skip(2, a.hash, 0, c.hash)).toBe(false); // an empty segment
    expect([verifier.count, verifier.lastHash]).toEqual([2, a.hash]);
    expect(new ChainVerifier(0, undefined).skip(0, "0".repeat(64), 1, g.hash)).toBe(false); // a genesis is never taken on trust
    expect(verifier.skip(2, b.prevHash, 1, b.hash)).toBe(true);
    expect([verifier.count, verifier.lastHash]).toEqual([3, b.hash]);
    expect(verifier.accept(c, canonicalJSON(c.data))).toBeUndefined();
    const midway = ChainVerifier.midway(0, 2, a.hash);
    expect([midway.count, midway.lastHash]).toEqual([2, a.hash]);
    expect(midway.accept(b, canonicalJSON(b.data))).toBeUndefined();
    expect(midway.unreadable("bad line")).toEqual({ chain: 0, seq: 3, reason: "bad line" });
  });

  it("links chains: continues_from must name the previous chain's last hash", () => {
    const next = nextEntry(undefined, "GENESIS", { chain: 1, continues_from: a.hash });
    expect(new ChainVerifier(1, a.hash).accept(next, canonicalJSON(next.data))).toBeUndefined();
    expect(new ChainVerifier(1, g.hash).accept(next, canonicalJSON(next.data))?.reason).toBe(
      "genesis continues_from does not match the last hash of chain 0",
    );
    expect(new ChainVerifier(0, undefined).accept(next, canonicalJSON(next.data))?.reason).toBe(
      "first chain's genesis claims to continue another chain",
    );
    expect(new ChainVerifier(2, a.hash).accept(next, canonicalJSON(next.data))?.reason).toBe("genesis says chain 1, found as chain 2");
  });
});

describe("entry lines", () => {
  const g = nextEntry(undefined, "GENESIS", { b: [1, "é"], a: null });

  it("round-trip and are canonical JSON", () => {
    const line = encodeEntryLine(g);
    expect(line).toBe(canonicalJSON(g));
    expect(parseEntryLine(line)).toEqual({ ok: true, entry: g, canonicalData: canonicalJSON(g.data) });
  });

  it.each([
    ["not json", "not valid JSON"],
    ["[]", "not a JSON object"],
    ['{"data":{},"hash":"x","prevHash":"x","seq":-1,"type":"CLAIM"}', "seq is not a non-negative integer"],
    ['{"data":{},"hash":"x","prevHash":"x","seq":1,"type":"claim"}', "type is not one of the RFC-001 entry types"],
    ['{"data":[],"hash":"x","prevHash":"x","seq":1,"type":"CLAIM"}', "data is not a JSON object"],
  ])("reject %s", (line, reason) => {
    expect(parseEntryLine(line)).toEqual({ ok: false, reason });
  });

  it("reject a non-canonical spelling of a valid entry, and extra fields", () => {
    const line = encodeEntryLine(g);
    expect(parseEntryLine(line.replace('"seq":0', '"seq":0.0'))).toEqual({ ok: false, reason: "entry is not in canonical form" });
    expect(parseEntryLine(line.replace("{", '{"hash":"00", '))).toEqual({ ok: false, reason: "entry is not in canonical form" });
    expect(parseEntryLine(`${line.slice(0, -1)},"x":1}`)).toEqual({ ok: false, reason: "unexpected fields in entry" });
  });

  it("never throw on any input, and only accept lines they would have written", () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.json(), fc.constant(encodeEntryLine(g))), (line) => {
        const parsed = parseEntryLine(line);
        if (parsed.ok) expect(encodeEntryLine(parsed.entry)).toBe(line);
      }),
      { numRuns: 3_000 },
    );
  });
});
