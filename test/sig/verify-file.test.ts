import { createHash } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { signFile } from "../../src/sig/sign-file.js";
import type { SigContext } from "../../src/sig/sig-context.js";
import { updateAndSign } from "../../src/sig/update-and-sign.js";
import { checkFile, verifyFile } from "../../src/sig/verify-file.js";
import { fixedClock, ProjectFixture, RecordingSink } from "./project-fixture.js";

/**
 * What `verify` and `check` tell the owner about one file, whole: a failure names the file, the
 * hash found, who signed it and when, and the chain, so the owner can see what changed.
 */
let fixture: ProjectFixture;
let sink: RecordingSink;
let ctx: SigContext;
const hashOf = (text: string) => `sha256:${createHash("sha256").update(text).digest("hex")}`;

beforeEach(() => {
  fixture = new ProjectFixture();
  fixture.config({ version: 1 });
  fixture.write("prompt.md", "Hello {{ name }}.\n");
  sink = new RecordingSink();
  ctx = fixture.context({ audit: sink, clock: fixedClock() });
  signFile(ctx, "prompt.md", { identity: "owner:a" });
});
afterEach(() => fixture.remove());

describe("verifyFile and checkFile", () => {
  it("a modified file: the hash found, the signer and time, and the expected hash in the audit", () => {
    fixture.write("prompt.md", "Obey.\n");
    expect(verifyFile(ctx, "prompt.md")).toEqual({
      verified: false,
      file: "prompt.md",
      hash: hashOf("Obey.\n"),
      signedBy: "owner:a",
      signedAt: "2026-01-01T00:00:00.000Z",
      error: "Content has been modified since signing",
    });
    expect(sink.records.at(-1)?.data).toMatchObject({
      event: "verify-fail",
      file: "prompt.md",
      hash: hashOf("Obey.\n"),
      detail: `Expected ${hashOf("Hello {{ name }}.\n")}, got ${hashOf("Obey.\n")}`,
    });
    expect(checkFile(ctx, "prompt.md")).toMatchObject({ file: "prompt.md", status: "modified", detail: "Content has been modified since signing", signature: { signedBy: "owner:a" } });
  });

  it("a file never signed: no hash, no signer; check says unsigned with no detail", () => {
    fixture.write("other.md", "x\n");
    expect(verifyFile(ctx, "other.md")).toEqual({ verified: false, file: "other.md", error: "No signature found" });
    expect(sink.records.at(-1)?.data).toMatchObject({ event: "verify-fail", file: "other.md", detail: "No signature found" });
    expect(sink.records.at(-1)?.data).not.toHaveProperty("hash");
    expect(checkFile(ctx, "other.md")).toEqual({ file: "other.md", status: "unsigned" });
  });

  it("a signed file verifies with no chain and no placeholders when no engine is named", () => {
    fixture.write(".sig/chains/prompt.md.chain.jsonl", "");
    expect(verifyFile(ctx, "prompt.md")).toEqual({
      verified: true,
      file: "prompt.md",
      template: "Hello {{ name }}.\n",
      hash: hashOf("Hello {{ name }}.\n"),
      signedBy: "owner:a",
      signedAt: "2026-01-01T00:00:00.000Z",
    });
    expect(checkFile(ctx, "prompt.md")).toEqual({ file: "prompt.md", status: "signed", signature: expect.objectContaining({ signedBy: "owner:a" }) });
  });

  it("a signature's own template engine finds the placeholders when the configuration names none", () => {
    signFile(ctx, "prompt.md", { identity: "owner:a", engine: "jinja" });
    expect(verifyFile(ctx, "prompt.md")).toMatchObject({ verified: true, placeholders: ["{{ name }}"] });
  });

  it("a broken chain: the failure carries the chain's length, its error and its last signer", () => {
    fixture.config({ version: 1, files: { "prompt.md": { mutable: true } } });
    const mutable = fixture.context({ audit: sink, clock: fixedClock(Date.UTC(2026, 1, 1)) });
    for (const text of ["one\n", "two\n"]) updateAndSign(mutable, "prompt.md", text, { identity: "owner:b", sourceType: "signed_message", reason: "r" });
    const chainPath = fixture.path(".sig/chains/prompt.md.chain.jsonl");
    const [first, second] = readFileSync(chainPath, "utf8").trimEnd().split("\n");
    const tampered = JSON.stringify({ ...(JSON.parse(first ?? "") as object), hash: hashOf("elsewhere") });
    writeFileSync(chainPath, `${tampered}\n${second ?? ""}\n`);
    const result = verifyFile(mutable, "prompt.md");
    expect(result).toMatchObject({
      verified: false,
      file: "prompt.md",
      hash: hashOf("two\n"),
      signedBy: "owner:b",
      chain: { length: 2, valid: false, lastUpdatedBy: "owner:b", lastUpdatedAt: "2026-02-01T00:00:02.000Z" },
    });
    expect(result.error).toMatch(/^Update chain is broken: .+/);
    expect(result.chain?.error).toBe(result.error?.slice("Update chain is broken: ".length));
    expect(checkFile(mutable, "prompt.md")).toMatchObject({ status: "corrupted", detail: result.error });
  });
});
