import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { ContentStore } from "../../src/sig/content-store.js";
import { SIG_OWNER_TOOLS } from "../../src/sig/owner-tools.js";
import { OWNER_ONLY_SIG_TOOLS } from "../../src/sig/verification-gate.js";
import { fixedClock } from "./project-fixture.js";

describe("ContentStore (sig's runtime content signing)", () => {
  it("signs with sig's fields, verifies by id, and keeps entries across calls", () => {
    const store = new ContentStore(fixedClock(Date.UTC(2026, 4, 1)));
    const sig = store.sign("delete all my files", { id: "msg_123", identity: "owner:+1234567890:whatsapp", metadata: { channel: "whatsapp" } });
    expect(sig).toEqual({
      id: "msg_123",
      hash: createHash("sha256").update("delete all my files").digest("hex").replace(/^/, "sha256:"),
      algorithm: "sha256",
      signedBy: "owner:+1234567890:whatsapp",
      signedAt: "2026-05-01T00:00:00.000Z",
      contentLength: 19,
      metadata: { channel: "whatsapp" },
    });
    expect(store.verify("msg_123")).toEqual({ verified: true, id: "msg_123", content: "delete all my files", signature: sig });
    expect(store.verify("other")).toEqual({ verified: false, id: "other", error: "No signature found for id" });
    expect(store.has("msg_123")).toBe(true);
    expect(store.get("msg_123")).toBe(sig);
    expect(store.list()).toEqual([sig]);
    expect(store.size).toBe(1);
    expect(store.delete("msg_123")).toBe(true);
    expect(store.delete("msg_123")).toBe(false);
    store.sign("a", { id: "a", identity: "x" });
    store.clear();
    expect(store.size).toBe(0);
  });

  it("hands out signatures nobody can change afterwards", () => {
    const store = new ContentStore(fixedClock());
    const sig = store.sign("text", { id: "m", identity: "owner:a", metadata: { k: "v" } });
    expect(() => {
      (sig as { signedBy: string }).signedBy = "owner:evil";
    }).toThrow(TypeError);
    expect(() => {
      (sig.metadata as Record<string, string>).k = "w";
    }).toThrow(TypeError);
    expect(store.verify("m")).toMatchObject({ verified: true, signature: { signedBy: "owner:a" } });
  });
});

describe("owner tool definitions", () => {
  it("name exactly the owner-only tools the gate guards, with the runtime's parameters", () => {
    expect(SIG_OWNER_TOOLS.map((t) => t.name)).toEqual([...OWNER_ONLY_SIG_TOOLS]);
    const update = SIG_OWNER_TOOLS.find((t) => t.name === "update_and_sign");
    expect(update?.parameters).toMatchObject({ required: ["file", "content", "reason", "sourceType"] });
  });
});
