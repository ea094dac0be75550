import { describe, expect, it } from "vitest";
import { parseSignature } from "../../src/sig/signature.js";
import { parseChain, serializeChainEntry, validateChain, type ChainEntry } from "../../src/sig/update-chain.js";

/** The two record formats of `.sig/`, read field by field: what is refused, and why. */
const HASH_A = `sha256:${"a".repeat(64)}`;
const HASH_B = `sha256:${"b".repeat(64)}`;
const SIGNATURE = { file: "soul.md", hash: HASH_A, algorithm: "sha256", signedBy: "owner:a", signedAt: "2026-01-01T00:00:00.000Z", contentLength: 12 };

describe("parseSignature", () => {
  const problem = (value: unknown, raw = JSON.stringify(value)) => {
    const parsed = parseSignature(raw, "soul.md");
    return parsed.ok ? "ok" : parsed.problem;
  };

  it("names the first field that is wrong", () => {
    expect(problem(null, "{not json")).toBe("not valid JSON");
    for (const value of [null, [], 5, "x"]) expect(problem(value)).toBe("not a JSON object");
    expect(problem({ ...SIGNATURE, file: 5 })).toBe("file is not a string");
    expect(problem({ ...SIGNATURE, file: "other.md" })).toBe('names "other.md" instead of "soul.md"');
    expect(problem({ ...SIGNATURE, hash: "sha256:abc" })).toBe("hash is not sha256:<64 hex>");
    expect(problem({ ...SIGNATURE, algorithm: "md5" })).toBe("algorithm is not sha256");
    expect(problem({ ...SIGNATURE, signedBy: 1 })).toBe("signedBy is not a string");
    expect(problem({ ...SIGNATURE, signedAt: 1 })).toBe("signedAt is not a string");
    for (const contentLength of [-1, 1.5, "12", 2 ** 60]) expect(problem({ ...SIGNATURE, contentLength })).toBe("contentLength is not a non-negative integer");
    expect(problem({ ...SIGNATURE, templateEngine: 3 })).toBe("templateEngine is not a string");
  });

  it("takes an empty file's signature, a Windows-written file name, and the template engine when there is one", () => {
    expect(parseSignature(JSON.stringify({ ...SIGNATURE, contentLength: 0 }), "soul.md")).toMatchObject({ ok: true, signature: { contentLength: 0 } });
    expect(parseSignature(JSON.stringify({ ...SIGNATURE, file: "llm\\prompts\\a.txt" }), "llm/prompts/a.txt")).toMatchObject({ ok: true, signature: { file: "llm/prompts/a.txt" } });
    expect(parseSignature(JSON.stringify({ ...SIGNATURE, templateEngine: "jinja" }), "soul.md")).toMatchObject({ ok: true, signature: { templateEngine: "jinja" } });
    const plain = parseSignature(JSON.stringify(SIGNATURE), "soul.md");
    expect(plain.ok && Object.keys(plain.signature)).toEqual(["file", "hash", "algorithm", "signedBy", "signedAt", "contentLength"]);
  });
});

describe("the update chain", () => {
  const entry = (hash: string, previousHash: string, provenance: ChainEntry["provenance"] = { sourceType: "signed_message", reason: "r" }): ChainEntry => ({
    hash,
    previousHash,
    signedBy: "owner:a",
    signedAt: "2026-01-01T00:00:00.000Z",
    contentLength: 3,
    provenance,
  });

  it("keeps every provenance field through a write and a read, and only those given", () => {
    const full = entry(HASH_B, HASH_A, { sourceType: "signed_template", sourceId: "t.txt", sourceIdentity: "owner:a", sourceHash: HASH_A, reason: "sync" });
    expect(parseChain(serializeChainEntry(full))).toEqual({ ok: true, entries: [full] });
    const bare = serializeChainEntry(entry(HASH_B, HASH_A));
    expect(Object.keys((JSON.parse(bare) as { provenance: object }).provenance)).toEqual(["sourceType", "reason"]);
  });

  it("skips blank and whitespace-only lines; refuses a line that is no entry, counting the entries before it", () => {
    const line = serializeChainEntry(entry(HASH_B, HASH_A));
    expect(parseChain(`\n  \n${line}\t\n`)).toMatchObject({ ok: true, entries: [{ hash: HASH_B }] });
    const bad = (fields: Record<string, unknown>) => parseChain(line + JSON.stringify({ ...JSON.parse(line), ...fields }) + "\n");
    for (const fields of [{ contentLength: -1 }, { provenance: { sourceType: "signed_message", reason: "r", sourceId: 5 } }, { provenance: { sourceType: "signed_message", reason: "r", sourceHash: null } }]) {
      expect(bad(fields)).toEqual({ ok: false, entries: [entry(HASH_B, HASH_A)], error: "Chain entry 1 is not a valid chain entry" });
    }
  });

  it("an empty chain is valid; with no signature to compare, only the links are checked", () => {
    expect(validateChain(parseChain(""), HASH_A)).toEqual({ valid: true, length: 0 });
    const chain = parseChain(serializeChainEntry(entry(HASH_A, HASH_B)) + serializeChainEntry(entry(HASH_B, HASH_A)));
    expect(validateChain(chain, undefined)).toEqual({ valid: true, length: 2 });
    expect(validateChain(chain, HASH_A)).toEqual({ valid: false, length: 2, error: `Chain head ${HASH_B} does not match the signature ${HASH_A}` });
  });
});
