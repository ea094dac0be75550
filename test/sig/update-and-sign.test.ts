import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync } from "node:fs";
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
});
