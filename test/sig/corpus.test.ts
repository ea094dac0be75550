import { readFileSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { contentLength, hashContent } from "../../src/sig/hash.js";
import { serializeSignature } from "../../src/sig/signature.js";
import { signFile } from "../../src/sig/sign-file.js";
import { verifyFile, VERIFY_ERRORS } from "../../src/sig/verify-file.js";
import { matchesFilePattern, matchesIdentityPattern, resolveFilePolicy } from "../../src/sig/file-policy.js";
import { resolveContainedPath } from "../../src/sig/project-path.js";
import { updateAndSign } from "../../src/sig/update-and-sign.js";
import { ContentStore } from "../../src/sig/content-store.js";
import { parseChain } from "../../src/sig/update-chain.js";
import { fixedClock, ProjectFixture } from "./project-fixture.js";

const here = dirname(fileURLToPath(import.meta.url));
const corpus = JSON.parse(readFileSync(join(here, "../../../shared/corpora/sig/sig-format.json"), "utf8")) as {
  content_hashes: { content: string; hash: string; contentLength: number }[];
  sig_json_example: {
    path: string;
    for_file: string;
    content: string;
    json_key_order: string[];
    value: Record<string, unknown>;
    placeholders_reported_on_verify: string[];
  };
  chain_line_example: { path: string; line_fields: string[]; after_update: { previousHash: string; hash: string } };
  verify_error_strings: Record<string, string>;
  update_denial_codes: Record<string, string>;
};

let fixture: ProjectFixture | undefined;
afterEach(() => {
  fixture?.remove();
  fixture = undefined;
});

describe("sig-format.json: hashing", () => {
  it.each(corpus.content_hashes)("hashes $hash", ({ content, hash, contentLength: length }) => {
    expect(hashContent(content)).toBe(hash);
    expect(hashContent(Buffer.from(content, "utf8"))).toBe(hash);
    expect(contentLength(content)).toBe(length);
  });

  it("signs files byte-exactly: BOM and CRLF are not normalised", () => {
    fixture = new ProjectFixture();
    const ctx = fixture.context();
    for (const [i, entry] of corpus.content_hashes.entries()) {
      fixture.write(`f${i}.txt`, entry.content);
      const sig = signFile(ctx, `f${i}.txt`, { identity: "t" });
      expect(sig.hash).toBe(entry.hash);
      expect(sig.contentLength).toBe(entry.contentLength);
      expect(readFileSync(fixture.path(`.sig/sigs/f${i}.txt.sig.content`), "utf8")).toBe(entry.content);
    }
  });
});

describe("sig-format.json: the .sig.json layout", () => {
  const example = corpus.sig_json_example;

  it("writes the example signature with sig's key order, indent and trailing newline", () => {
    fixture = new ProjectFixture();
    fixture.config({ version: 1, templates: { engine: "jinja" } });
    fixture.write(example.for_file, example.content);
    const ctx = fixture.context({ clock: () => Date.UTC(2026, 1, 3, 4, 5, 6) });
    signFile(ctx, example.for_file, { identity: "openclaw" });
    const text = readFileSync(fixture.path(example.path), "utf8");
    const expected = { ...example.value, signedAt: "2026-02-03T04:05:06.000Z" };
    expect(text).toBe(JSON.stringify(expected, null, 2) + "\n");
    expect(Object.keys(JSON.parse(text) as object)).toEqual(example.json_key_order);
    expect(readFileSync(fixture.path(example.path.replace(/\.sig\.json$/, ".sig.content")), "utf8")).toBe(example.content);
  });

  it("serializes in key order whatever order the object was built in", () => {
    const value = example.value as { file: string; hash: string; signedBy: string; signedAt: string; contentLength: number; templateEngine: string };
    const shuffled = {
      templateEngine: value.templateEngine,
      contentLength: value.contentLength,
      signedAt: value.signedAt,
      signedBy: value.signedBy,
      algorithm: "sha256" as const,
      hash: value.hash,
      file: value.file,
    };
    expect(Object.keys(JSON.parse(serializeSignature(shuffled)) as object)).toEqual(example.json_key_order);
  });

  it("verification returns the signed text with placeholders visible, the signer and the time", () => {
    fixture = new ProjectFixture();
    fixture.config({ version: 1, templates: { engine: "jinja" } });
    fixture.write(example.for_file, example.content);
    const ctx = fixture.context();
    const sig = signFile(ctx, example.for_file, { identity: "openclaw" });
    const result = verifyFile(ctx, example.for_file);
    expect(result).toMatchObject({
      verified: true,
      template: example.content,
      signedBy: "openclaw",
      signedAt: sig.signedAt,
      placeholders: example.placeholders_reported_on_verify,
    });
  });
});

describe("sig-format.json: error strings", () => {
  const errors = corpus.verify_error_strings;

  it("uses sig's verification error strings", () => {
    expect(VERIFY_ERRORS.noSignature).toBe(errors["no signature"]);
    expect(VERIFY_ERRORS.corrupted).toBe(errors["corrupted .sig.json"]);
    expect(VERIFY_ERRORS.fileMissing).toBe(errors["file missing"]);
    expect(VERIFY_ERRORS.modified).toBe(errors.modified);
  });

  it("produces each of them from the situation that causes it", () => {
    fixture = new ProjectFixture();
    const ctx = fixture.context();
    expect(verifyFile(ctx, "nothing.txt").error).toBe(errors["no signature"]);

    fixture.write("a.txt", "a");
    signFile(ctx, "a.txt", { identity: "t" });
    fixture.write(".sig/sigs/a.txt.sig.json", "{ not json");
    expect(verifyFile(ctx, "a.txt").error).toBe(errors["corrupted .sig.json"]);

    fixture.write("c.txt", "c");
    signFile(ctx, "c.txt", { identity: "t" });
    fixture.write("c.txt", "changed");
    expect(verifyFile(ctx, "c.txt").error).toBe(errors.modified);

    fixture.write("gone.txt", "x");
    signFile(ctx, "gone.txt", { identity: "t" });
    rmSync(fixture.path("gone.txt"));
    expect(verifyFile(ctx, "gone.txt").error).toBe(errors["file missing"]);
  });

  it("refuses paths outside the project with sig's message", () => {
    fixture = new ProjectFixture();
    const expected = errors["path outside project"]?.replace("<path>", "../etc/passwd");
    expect(() => resolveContainedPath(fixture!.root, "../etc/passwd")).toThrow(expected);
    expect(() => verifyFile(fixture!.context(), "../etc/passwd")).toThrow(expected);
  });
});

describe("sig-format.json: update denial codes and the chain line", () => {
  const denials = corpus.update_denial_codes;

  it("denies with each of sig's codes and reasons", () => {
    fixture = new ProjectFixture();
    fixture.config({
      version: 1,
      files: {
        "soul.md": { mutable: true, authorizedIdentities: ["owner:*"], requireSignedSource: true },
        "fresh.md": { mutable: true },
      },
    });
    fixture.write("soul.md", "original soul content\n");
    fixture.write("fresh.md", "x");
    fixture.write("fixed.txt", "x");
    const ctx = fixture.context();
    signFile(ctx, "soul.md", { identity: "workspace:init" });
    const store = new ContentStore(fixedClock());

    const notMutable = updateAndSign(ctx, "fixed.txt", "y", { identity: "owner:adam", sourceType: "signed_message", reason: "r" });
    expect(notMutable.denial).toEqual({ code: "not_mutable", reason: denials.not_mutable });

    const notSigned = updateAndSign(ctx, "fresh.md", "y", { identity: "owner:adam", sourceType: "signed_message", reason: "r" });
    expect(notSigned.denial).toEqual({ code: "not_signed", reason: denials.not_signed });

    const unauthorized = updateAndSign(ctx, "soul.md", "y", { identity: "admin:adam", sourceType: "signed_message", reason: "r" });
    expect(unauthorized.denial).toEqual({ code: "unauthorized_identity", reason: denials.unauthorized_identity?.replace("<id>", "admin:adam") });

    const unsigned = updateAndSign(ctx, "soul.md", "y", { identity: "owner:adam", sourceType: "signed_message", reason: "r", contentStore: store });
    expect(unsigned.denial).toEqual({ code: "unsigned_source", reason: denials.unsigned_source });

    const failed = updateAndSign(ctx, "soul.md", "y", {
      identity: "owner:adam", sourceType: "signed_message", sourceId: "s:chan:404", reason: "r", contentStore: store,
    });
    expect(failed.denial).toEqual({ code: "source_verification_failed", reason: denials.source_verification_failed?.replace("<id>", "s:chan:404") });
  });

  it("writes the example update as a chain line with sig's fields and hashes", () => {
    fixture = new ProjectFixture();
    fixture.config({ version: 1, files: { "soul.md": { mutable: true, authorizedIdentities: ["owner:*"], requireSignedSource: true } } });
    fixture.write("soul.md", "original soul content\n");
    const ctx = fixture.context();
    signFile(ctx, "soul.md", { identity: "workspace:init" });
    const store = new ContentStore(fixedClock());
    store.sign("Please update soul.md with new values", { id: "s1:whatsapp:m1", identity: "owner:+1234567890:whatsapp" });
    const result = updateAndSign(ctx, "soul.md", "updated soul content\n", {
      identity: "owner:+1234567890:whatsapp", sourceType: "signed_message", sourceId: "s1:whatsapp:m1", reason: "owner asked", contentStore: store,
    });
    expect(result).toMatchObject({ approved: true, ...corpus.chain_line_example.after_update, chainLength: 1 });
    const text = readFileSync(fixture.path(corpus.chain_line_example.path), "utf8");
    expect(text.endsWith("\n")).toBe(true);
    const line = JSON.parse(text.trim()) as Record<string, unknown>;
    const fields = corpus.chain_line_example.line_fields.map((f) => f.replace(/\{.*$/, ""));
    expect(Object.keys(line)).toEqual(fields);
    expect(Object.keys(line.provenance as object)).toEqual(["sourceType", "sourceId", "sourceIdentity", "sourceHash", "reason"]);
    expect(line.provenance).toMatchObject({ sourceIdentity: "owner:+1234567890:whatsapp", sourceHash: corpus.content_hashes[7]?.hash });
    expect(parseChain(text).ok).toBe(true);
    expect(readFileSync(fixture.path("soul.md"), "utf8")).toBe("updated soul content\n");
  });
});

describe("sig-format.json: matching rules", () => {
  it("an exact key wins; otherwise the longest '*' pattern wins", () => {
    const config = {
      version: 1 as const,
      files: {
        "prompts/*": { mutable: false, requireApproval: true },
        "prompts/*.txt": { mutable: true },
        "prompts/review.txt": { mutable: false, requireSignedSource: true },
      },
    };
    expect(resolveFilePolicy(config, "prompts/review.txt")).toEqual({ mutable: false, requireSignedSource: true });
    expect(resolveFilePolicy(config, "prompts/other.txt")).toEqual({ mutable: true });
    expect(resolveFilePolicy(config, "prompts/other.md")).toEqual({ mutable: false, requireApproval: true });
  });

  it("'*' matches within the file-name position only", () => {
    expect(matchesFilePattern("prompts/*.txt", "prompts/review.txt")).toBe(true);
    expect(matchesFilePattern("prompts/*.txt", "llm/other/x.txt")).toBe(false);
    expect(matchesFilePattern("prompts/*.txt", "prompts/sub/x.txt")).toBe(false);
    expect(matchesFilePattern("*.md", "a/soul.md")).toBe(false);
    expect(matchesFilePattern("*.md", "soul.md")).toBe(true);
  });

  it("no match gives {mutable:false}", () => {
    expect(resolveFilePolicy({ version: 1, files: { "soul.md": { mutable: true } } }, "other.md")).toEqual({ mutable: false });
    expect(resolveFilePolicy({ version: 1 }, "soul.md")).toEqual({ mutable: false });
  });

  it("identity patterns match by prefix up to the first '*'", () => {
    expect(matchesIdentityPattern("owner:*", "owner:adam")).toBe(true);
    expect(matchesIdentityPattern("owner:*", "owner:+1234567890:whatsapp")).toBe(true);
    expect(matchesIdentityPattern("owner:*", "admin:adam")).toBe(false);
    expect(matchesIdentityPattern("owner:adam", "owner:adam")).toBe(true);
    expect(matchesIdentityPattern("owner:adam", "owner:adamx")).toBe(false);
  });
});
