import { createHash } from "node:crypto";
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ContentStore } from "../../src/sig/content-store.js";
import { PathEscapeError } from "../../src/sig/project-path.js";
import { signFile } from "../../src/sig/sign-file.js";
import type { SigContext } from "../../src/sig/sig-context.js";
import { updateAndSign } from "../../src/sig/update-and-sign.js";
import { verifyFile } from "../../src/sig/verify-file.js";
import { fixedClock, ProjectFixture, RecordingSink, SOUL_POLICY_CONFIG } from "./project-fixture.js";

let fixture: ProjectFixture;
let ctx: SigContext;
let sink: RecordingSink;
let store: ContentStore;

beforeEach(() => {
  fixture = new ProjectFixture();
  fixture.config(SOUL_POLICY_CONFIG);
  fixture.write("soul.md", "original soul content\n");
  fixture.write("llm/prompts/identity.txt", "You are {{ name }}.\n");
  sink = new RecordingSink();
  ctx = fixture.context({ audit: sink });
  signFile(ctx, "soul.md", { identity: "workspace:init" });
  signFile(ctx, "llm/prompts/identity.txt", { identity: "openclaw" });
  store = new ContentStore(fixedClock());
  store.sign("Please update soul.md with new values", { id: "s1:whatsapp:m1", identity: "owner:+1234567890:whatsapp" });
  store.sign("hi from a guest", { id: "s1:whatsapp:m2", identity: "guest:+999:whatsapp" });
});
afterEach(() => fixture.remove());

const owner = "owner:+1234567890:whatsapp";

function unchanged(): void {
  expect(readFileSync(fixture.path("soul.md"), "utf8")).toBe("original soul content\n");
  expect(verifyFile(ctx, "soul.md")).toMatchObject({ verified: true, signedBy: "workspace:init" });
}

describe("update_and_sign: stricter than sig", () => {
  it("denies requireSignedSource with no content store (sig approves any sourceId)", () => {
    const r = updateAndSign(ctx, "soul.md", "evil", { identity: owner, sourceType: "signed_message", sourceId: "s1:whatsapp:m1", reason: "r" });
    expect(r.denial).toEqual({ code: "source_verification_failed", reason: 'Source message "s1:whatsapp:m1" could not be verified' });
    unchanged();
  });

  it("denies a source id that does not resolve in the session's store", () => {
    const r = updateAndSign(ctx, "soul.md", "evil", { identity: owner, sourceType: "signed_message", sourceId: "s1:whatsapp:forged", reason: "r", contentStore: store });
    expect(r.denial?.code).toBe("source_verification_failed");
    unchanged();
  });

  it("denies when the source message was signed by an identity not authorised for the file", () => {
    const r = updateAndSign(ctx, "soul.md", "evil", { identity: owner, sourceType: "signed_message", sourceId: "s1:whatsapp:m2", reason: "r", contentStore: store });
    expect(r.denial).toEqual({ code: "unauthorized_identity", reason: 'Identity "guest:+999:whatsapp" is not authorized to update this file' });
    unchanged();
  });

  it("refuses an unknown sourceType instead of skipping the source check", () => {
    const r = updateAndSign(ctx, "soul.md", "evil", { identity: owner, sourceType: "trust_me", sourceId: "x", reason: "r", contentStore: store });
    expect(r.denial?.code).toBe("unsigned_source");
    unchanged();
  });

  it("records the verified source's identity and hash, not what the caller claimed", () => {
    const r = updateAndSign(ctx, "soul.md", "updated soul content\n", {
      identity: owner, sourceType: "signed_message", sourceId: "s1:whatsapp:m1", reason: "asked", contentStore: store,
    });
    expect(r.approved).toBe(true);
    const line = JSON.parse(readFileSync(fixture.path(".sig/chains/soul.md.chain.jsonl"), "utf8")) as { provenance: Record<string, string> };
    expect(line.provenance).toEqual({
      sourceType: "signed_message",
      sourceId: "s1:whatsapp:m1",
      sourceIdentity: owner,
      sourceHash: "sha256:911c94a573e0a4556be9b0daadb44b2b71cff515217670df44bddaac6d0f8474",
      reason: "asked",
    });
  });
});

describe("update_and_sign: sig's checks", () => {
  it("accepts a verified signed template as the source", () => {
    const r = updateAndSign(ctx, "soul.md", "from template\n", { identity: owner, sourceType: "signed_template", sourceId: "llm/prompts/identity.txt", reason: "r" });
    expect(r).toMatchObject({ approved: true, chainLength: 1 });
  });

  it("denies a template source that does not verify, or escapes the project", () => {
    fixture.write("llm/prompts/identity.txt", "tampered");
    for (const sourceId of ["llm/prompts/identity.txt", "../../etc/passwd", "nope.txt"]) {
      const r = updateAndSign(ctx, "soul.md", "x", { identity: owner, sourceType: "signed_template", sourceId, reason: "r" });
      expect(r.denial).toEqual({ code: "source_verification_failed", reason: `Source template "${sourceId}" could not be verified` });
    }
    unchanged();
  });

  it("requires a sourceId for a signed_template source", () => {
    const r = updateAndSign(ctx, "soul.md", "x", { identity: owner, sourceType: "signed_template", reason: "r" });
    expect(r.denial).toEqual({ code: "unsigned_source", reason: "sourceId is required when sourceType is signed_template" });
  });

  it("does not check sources when the policy does not require them", () => {
    fixture.write("agents.md", "a");
    signFile(ctx, "agents.md", { identity: "workspace:init" });
    const r = updateAndSign(ctx, "agents.md", "b", { identity: "anyone", sourceType: "signed_message", reason: "r" });
    expect(r).toMatchObject({ approved: true, chainLength: 1 });
  });

  it("refuses paths that escape the project", () => {
    expect(() => updateAndSign(ctx, "../soul.md", "x", { identity: owner, sourceType: "signed_message", reason: "r" })).toThrow(PathEscapeError);
  });

  it("treats an immutable (template) policy as not mutable", () => {
    const r = updateAndSign(ctx, "llm/prompts/identity.txt", "x", { identity: owner, sourceType: "signed_message", reason: "r" });
    expect(r.denial?.code).toBe("not_mutable");
  });

  it("audits every denial and the approval", () => {
    updateAndSign(ctx, "soul.md", "x", { identity: "admin:x", sourceType: "signed_message", reason: "r" });
    updateAndSign(ctx, "soul.md", "ok\n", { identity: owner, sourceType: "signed_message", sourceId: "s1:whatsapp:m1", reason: "r", contentStore: store });
    const events = sink.records.map((r) => r.data.event);
    expect(events.slice(-2)).toEqual(["update_denied", "update"]);
    expect(sink.records.at(-2)?.data.detail).toBe("Identity not authorized. Allowed: owner:*");
  });

  it("keeps the file's permission bits and chains successive updates", () => {
    chmodSync(fixture.path("soul.md"), 0o640);
    for (const [i, text] of ["one\n", "two\n", "three\n"].entries()) {
      const r = updateAndSign(ctx, "soul.md", text, { identity: owner, sourceType: "signed_message", sourceId: "s1:whatsapp:m1", reason: "r", contentStore: store });
      expect(r.chainLength).toBe(i + 1);
    }
    expect(statSync(fixture.path("soul.md")).mode & 0o777).toBe(0o640);
    expect(verifyFile(ctx, "soul.md")).toMatchObject({ verified: true, template: "three\n", chain: { length: 3, valid: true } });
  });
});

describe("update_and_sign: where the write lands", () => {
  it("refuses to follow a symlinked directory out of the project", () => {
    const outside = mkdtempSync(join(tmpdir(), "provenant-outside-"));
    try {
      fixture.config({ version: 1, files: { "memory/*.md": { mutable: true } } });
      symlinkSync(outside, fixture.path("memory"));
      fixture.write("memory/notes.md", "n");
      const c = fixture.context();
      signFile(c, "memory/notes.md", { identity: "workspace:init" });
      expect(() => updateAndSign(c, "memory/notes.md", "pwned", { identity: "owner:a", sourceType: "signed_message", reason: "r" })).toThrow(PathEscapeError);
      expect(readFileSync(join(outside, "notes.md"), "utf8")).toBe("n");
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  });

  it("makes no directory outside the project on its way to refusing", () => {
    const outside = mkdtempSync(join(tmpdir(), "provenant-outside-"));
    try {
      fixture.config({ version: 1, files: { "memory/deep/*.md": { mutable: true } } });
      fixture.write("memory/deep/notes.md", "n");
      const c = fixture.context();
      signFile(c, "memory/deep/notes.md", { identity: "workspace:init" });
      rmSync(fixture.path("memory"), { recursive: true });
      symlinkSync(outside, fixture.path("memory"));
      expect(() => updateAndSign(c, "memory/deep/notes.md", "pwned", { identity: "owner:a", sourceType: "signed_message", reason: "r" })).toThrow(PathEscapeError);
      expect(existsSync(join(outside, "deep"))).toBe(false);
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  });
});

describe("update_and_sign: what the signature, the chain and the audit keep", () => {
  const hashOf = (text: string) => `sha256:${createHash("sha256").update(text).digest("hex")}`;

  it("a template source is recorded with the identity and hash verification found", () => {
    const r = updateAndSign(ctx, "soul.md", "from template\n", { identity: owner, sourceType: "signed_template", sourceId: "llm/prompts/identity.txt", reason: "sync" });
    expect(r.approved).toBe(true);
    const line = JSON.parse(readFileSync(fixture.path(".sig/chains/soul.md.chain.jsonl"), "utf8")) as { provenance: Record<string, string> };
    expect(line.provenance).toEqual({
      sourceType: "signed_template",
      sourceId: "llm/prompts/identity.txt",
      sourceIdentity: "openclaw",
      sourceHash: hashOf("You are {{ name }}.\n"),
      reason: "sync",
    });
  });

  it("the new signature keeps the file's template engine", () => {
    expect(ctx.store.loadSignature("soul.md")).toMatchObject({ status: "found", signature: { templateEngine: "jinja" } });
    updateAndSign(ctx, "soul.md", "new\n", { identity: owner, sourceType: "signed_message", sourceId: "s1:whatsapp:m1", reason: "r", contentStore: store });
    expect(ctx.store.loadSignature("soul.md")).toMatchObject({ status: "found", signature: { templateEngine: "jinja", signedBy: owner, hash: hashOf("new\n") } });
  });

  it("a chain whose last line lacks its newline gets one before the next entry", () => {
    updateAndSign(ctx, "soul.md", "one\n", { identity: owner, sourceType: "signed_message", sourceId: "s1:whatsapp:m1", reason: "r", contentStore: store });
    const chainPath = fixture.path(".sig/chains/soul.md.chain.jsonl");
    writeFileSync(chainPath, readFileSync(chainPath, "utf8").trimEnd());
    const r = updateAndSign(ctx, "soul.md", "two\n", { identity: owner, sourceType: "signed_message", sourceId: "s1:whatsapp:m1", reason: "r", contentStore: store });
    expect(r.chainLength).toBe(2);
    expect(readFileSync(chainPath, "utf8").split("\n").filter((l) => l !== "")).toHaveLength(2);
    expect(verifyFile(ctx, "soul.md")).toMatchObject({ verified: true, chain: { length: 2, valid: true } });
  });

  it("each denial is audited with what was asked and why it was refused", () => {
    fixture.write("llm/prompts/identity.txt", "tampered");
    const attempts: [string, Record<string, unknown>][] = [
      ["llm/prompts/identity.txt", { identity: owner, sourceType: "signed_message", reason: "r" }],
      ["agents.md", { identity: owner, sourceType: "signed_message", reason: "r" }],
      ["soul.md", { identity: owner, sourceType: "trust_me", sourceId: "", reason: "r" }],
      ["soul.md", { identity: owner, sourceType: "signed_message", sourceId: "", reason: "r" }],
      ["soul.md", { identity: owner, sourceType: "signed_message", sourceId: "s1:whatsapp:m1", reason: "r" }],
      ["soul.md", { identity: owner, sourceType: "signed_message", sourceId: "s1:whatsapp:forged", reason: "r", contentStore: store }],
      ["soul.md", { identity: owner, sourceType: "signed_message", sourceId: "s1:whatsapp:m2", reason: "r", contentStore: store }],
      ["soul.md", { identity: owner, sourceType: "signed_template", sourceId: "llm/prompts/identity.txt", reason: "r" }],
    ];
    for (const [file, request] of attempts) updateAndSign(ctx, file, "x", request as unknown as Parameters<typeof updateAndSign>[3]);
    const denied = sink.records.filter((r) => r.data.event === "update_denied").map((r) => [r.data.file, r.data.detail]);
    expect(denied).toEqual([
      ["llm/prompts/identity.txt", "File is not mutable"],
      ["agents.md", "File has no existing signature"],
      ["soul.md", 'Unknown sourceType "trust_me"'],
      ["soul.md", "No sourceId provided for signed_message provenance"],
      ["soul.md", "No content store to resolve sourceId: s1:whatsapp:m1"],
      ["soul.md", "ContentStore verification failed for sourceId: s1:whatsapp:forged"],
      ["soul.md", "Source message s1:whatsapp:m2 was signed by an identity not authorized for this file"],
      ["soul.md", "Template verification failed for sourceId: llm/prompts/identity.txt"],
    ]);
    const unknown = sink.records.find((r) => r.data.detail === 'Unknown sourceType "trust_me"');
    expect(unknown?.data.provenance).toEqual({ sourceType: "signed_message", reason: "r" });
    const result = updateAndSign(ctx, "soul.md", "x", { identity: owner, sourceType: "trust_me", reason: "r" });
    expect(result.denial).toEqual({ code: "unsigned_source", reason: 'sourceType must be "signed_message" or "signed_template"' });
  });

  it("the audited list of who may update names every allowed identity", () => {
    fixture.config({ ...SOUL_POLICY_CONFIG, files: { ...SOUL_POLICY_CONFIG.files, "soul.md": { mutable: true, authorizedIdentities: ["owner:*", "admin:ops"] } } });
    updateAndSign(fixture.context({ audit: sink }), "soul.md", "x", { identity: "guest:1", sourceType: "signed_message", reason: "r" });
    expect(sink.records.at(-1)?.data.detail).toBe("Identity not authorized. Allowed: owner:*, admin:ops");
  });
});
