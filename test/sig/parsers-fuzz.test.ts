import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseDetached, parsePublicKey, SigningKeyError } from "../../src/sig/ed25519.js";
import { extractPatchTargets } from "../../src/sig/patch-targets.js";
import { parseSigConfig, SigConfigError } from "../../src/sig/sig-config.js";
import { parseSignature, serializeSignature } from "../../src/sig/signature.js";
import type { Signature } from "../../src/sig/signature.js";
import { parseChain, serializeChainEntry, validateChain } from "../../src/sig/update-chain.js";
import type { ChainEntry } from "../../src/sig/update-chain.js";
import { extractPlaceholders, TEMPLATE_ENGINE_NAMES } from "../../src/sig/template-engines.js";
import { hashContent } from "../../src/sig/hash.js";

const hostileText = fc.oneof(
  fc.string({ unit: "binary", maxLength: 200 }),
  fc.json({ maxDepth: 3 }),
  fc.constantFrom("", "null", "[]", "{}", '{"__proto__":{"x":1}}', '{"version":1,"files":{"__proto__":{"mutable":true}}}'),
);

describe("parsers never throw on hostile input", () => {
  it("parseSignature returns ok or a problem", () => {
    fc.assert(
      fc.property(hostileText, fc.string({ maxLength: 20 }), (raw, file) => {
        const r = parseSignature(raw, file);
        expect(typeof r.ok).toBe("boolean");
      }),
      { numRuns: 2000 },
    );
  });

  it("parseChain returns entries or an error, and validateChain never throws", () => {
    fc.assert(
      fc.property(hostileText, fc.option(fc.string(), { nil: undefined }), (raw, head) => {
        const parsed = parseChain(raw);
        const v = validateChain(parsed, head);
        expect(v.length).toBe(parsed.entries.length);
      }),
      { numRuns: 2000 },
    );
  });

  it("parseSigConfig returns a config or throws SigConfigError naming the problem", () => {
    fc.assert(
      fc.property(hostileText, (raw) => {
        try {
          const config = parseSigConfig(raw);
          expect(config.version).toBe(1);
        } catch (error) {
          expect(error).toBeInstanceOf(SigConfigError);
          expect((error as Error).message).toMatch(/^\.sig\/config\.json: /);
        }
      }),
      { numRuns: 2000 },
    );
  });

  it("parseSigConfig names the bad key", () => {
    expect(() => parseSigConfig('{"version":2}')).toThrow(/^\.sig\/config\.json: version: /);
    expect(() => parseSigConfig('{"version":1,"files":{"soul.md":{"mutable":"yes"}}}')).toThrow('files."soul.md": mutable:');
    expect(() => parseSigConfig('{"version":1,"templates":{"engine":"liquid"}}')).toThrow(/templates\.engine/);
    const kept = parseSigConfig('{"version":1,"extra":{"a":1},"files":{"__proto__":{"mutable":true}}}');
    expect(kept.extra).toEqual({ a: 1 });
    expect(Object.getPrototypeOf(kept.files)).toBe(Object.prototype);
    expect(Object.hasOwn(kept.files ?? {}, "__proto__")).toBe(true);
  });

  it("parseDetached and parsePublicKey never throw anything but SigningKeyError", () => {
    fc.assert(
      fc.property(hostileText, (raw) => {
        parseDetached(raw);
        try {
          parsePublicKey(raw);
        } catch (error) {
          expect(error).toBeInstanceOf(SigningKeyError);
        }
        try {
          parsePublicKey(`ed25519:${raw}`);
        } catch (error) {
          expect(error).toBeInstanceOf(SigningKeyError);
        }
      }),
      { numRuns: 2000 },
    );
  });

  it("extractPlaceholders terminates on every engine and hostile custom patterns", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), fc.array(fc.string({ maxLength: 8 }), { maxLength: 3 }), (text, custom) => {
        const found = extractPlaceholders(text, TEMPLATE_ENGINE_NAMES, [{ name: "c", patterns: custom }]);
        for (const p of found) expect(p.length).toBeGreaterThan(0);
      }),
      { numRuns: 1000 },
    );
  });
});

describe("round trips", () => {
  const signature = fc.record({
    file: fc.stringMatching(/^[a-z]{1,5}(\/[a-z]{1,5}){0,2}\.txt$/),
    hash: fc.string().map((s) => hashContent(s)),
    algorithm: fc.constant("sha256" as const),
    signedBy: fc.string(),
    signedAt: fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
    contentLength: fc.nat(),
    templateEngine: fc.option(fc.constantFrom(...TEMPLATE_ENGINE_NAMES), { nil: undefined }),
  });

  it("signatures survive serialize → parse", () => {
    fc.assert(
      fc.property(signature, (sig) => {
        const clean: Signature = sig.templateEngine === undefined ? { ...sig, templateEngine: undefined } : sig;
        const parsed = parseSignature(serializeSignature(clean), sig.file);
        expect(parsed.ok).toBe(true);
        if (parsed.ok) expect(serializeSignature(parsed.signature)).toBe(serializeSignature(clean));
      }),
    );
  });

  it("chains survive serialize → parse and validate when linked", () => {
    fc.assert(
      fc.property(fc.array(fc.string(), { minLength: 1, maxLength: 6 }), fc.string(), (contents, reason) => {
        let previous = hashContent("genesis");
        let text = "";
        for (const c of contents) {
          const entry: ChainEntry = {
            hash: hashContent(c), previousHash: previous, signedBy: "owner:x", signedAt: "t", contentLength: c.length,
            provenance: { sourceType: "signed_message", sourceId: "s:c:m", reason },
          };
          text += serializeChainEntry(entry);
          previous = entry.hash;
        }
        const parsed = parseChain(text);
        expect(parsed.entries).toHaveLength(contents.length);
        expect(validateChain(parsed, previous).valid).toBe(true);
        expect(validateChain(parsed, hashContent("other")).valid).toBe(previous === hashContent("other"));
      }),
    );
  });
});

describe("patch targets", () => {
  it("never throws and never reports an empty path", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary", maxLength: 300 }), (patch) => {
        for (const t of extractPatchTargets(patch)) expect(t).not.toBe("");
      }),
      { numRuns: 3000 },
    );
  });

  it("finds every file header whatever surrounds it", () => {
    const name = fc.stringMatching(/^[a-z][a-z0-9_./-]{0,20}$/).filter((s) => !s.includes("..") && !s.endsWith("/"));
    fc.assert(
      fc.property(fc.array(fc.string(), { maxLength: 4 }), name, fc.constantFrom("Add", "Update", "Delete"), fc.constantFrom("\n", "\r\n"), (noise, file, op, eol) => {
        const junk = noise.map((n) => n.replace(/[\r\n]/g, " ").replace(/^(\*\*\*|---|\+\+\+|diff|rename|copy)/, "x"));
        const patch = ["*** Begin Patch", ...junk, `*** ${op} File: ${file}`, ...junk, "*** End Patch"].join(eol);
        expect(extractPatchTargets(patch)).toContain(file);
      }),
    );
  });

  it("handles quoted git names and /dev/null", () => {
    expect(extractPatchTargets('diff --git "a/my soul.md" "b/my soul.md"\n--- /dev/null\n+++ "b/my soul.md"\n')).toEqual(
      expect.arrayContaining(["a/my soul.md", "my soul.md", "b/my soul.md"]),
    );
    expect(extractPatchTargets("--- /dev/null\n")).toEqual([]);
    expect(extractPatchTargets("diff --git a/x y/z b/x y/z\n")).toEqual(expect.arrayContaining(["x y/z"]));
  });
});
