import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { steeredMessage } from "../../../src/adapters/openclaw/steered-messages.js";

const ANNOUNCE = { kind: "inter_session", sourceSessionKey: "agent:main:subagent:7", sourceChannel: "internal", sourceTool: "subagent_announce" };

describe("a message OpenClaw hands a running turn", () => {
  it("is not a user message: nothing to judge", () => {
    for (const message of [null, undefined, "text", 7, [], { role: "assistant", content: "x" }, { role: "toolResult", content: "x" }, { role: "custom", content: "x" }, { content: "x" }]) {
      expect(steeredMessage(message, ["42"])).toBeNull();
    }
  });

  it("a sub-agent's result and another session's message are never the owner's, whatever owner bit comes with them", () => {
    expect(steeredMessage({ role: "user", content: "done", provenance: ANNOUNCE }, [])).toEqual({
      owner: false,
      from: `another session's message (subagent_announce, from "agent:main:subagent:7")`,
      text: "done",
      media: false,
    });
    const sent = { role: "user", content: "hi", provenance: { kind: "inter_session", originSessionId: "s-1" }, __openclaw: { senderIsOwner: true, senderId: "42" } };
    expect(steeredMessage(sent, ["42"])).toMatchObject({ owner: false, from: `another session's message (unnamed tool, from "s-1")` });
    expect(steeredMessage({ role: "user", content: "x", provenance: { kind: "inter_session" } }, [])?.from).toBe(`another session's message (unnamed tool, from "an unnamed session")`);
  });

  it("a system event someone else wrote is not the owner's; one of the owner's configuration names no owner either", () => {
    const hook = { role: "user", content: "wake", provenance: { kind: "internal_system", sourceTool: "hook" }, __openclaw: { senderIsOwner: true } };
    expect(steeredMessage(hook, [])).toMatchObject({ owner: false, from: "a system event (hook)" });
    expect(steeredMessage({ role: "user", content: "tick", provenance: { kind: "internal_system", sourceTool: "cron" } }, [])).toMatchObject({ owner: false, from: "a system event (cron)" });
    expect(steeredMessage({ role: "user", content: "tick", provenance: { kind: "internal_system" } }, [])?.from).toBe("a system event (unnamed source)");
  });

  it("a chat message is the owner's when the host says so, or when ownerIds names its sender and the host says nothing", () => {
    const meta = (m: Record<string, unknown>) => ({ role: "user", content: [{ type: "text", text: "also this" }, { type: "image", data: "x" }, { type: "text", text: "and that" }], __openclaw: m });
    expect(steeredMessage(meta({ senderIsOwner: true, senderId: "9" }), [])).toEqual({ owner: true, from: 'a message from sender "9"', text: "also this\nand that", media: true });
    expect(steeredMessage({ role: "user", content: [{ type: "text", text: "a" }], __openclaw: { senderIsOwner: true } }, [])?.media).toBe(false);
    expect(steeredMessage({ role: "user", content: [{ type: "text", text: "a" }, "b"], __openclaw: { senderIsOwner: true } }, [])?.media).toBe(true);
    // Only text blocks with text are its text.
    const odd = { role: "user", content: [{ type: "text", text: 5 }, { type: "image", text: "a caption" }, { type: "text", text: "" }, { type: "text", text: "said" }, null], __openclaw: { senderIsOwner: true } };
    expect(steeredMessage(odd, [])?.text).toBe("said");
    expect(steeredMessage({ role: "user", content: { type: "text", text: "x" } }, [])?.text).toBe("");
    expect(steeredMessage(meta({ senderId: "42" }), ["42"])?.owner).toBe(true);
    expect(steeredMessage(meta({ senderIsOwner: false, senderId: "42" }), ["42"])?.owner).toBe(false);
    expect(steeredMessage(meta({ senderId: "43" }), ["42"])).toMatchObject({ owner: false, from: 'a message from sender "43"' });
    expect(steeredMessage(meta({ senderIsOwner: "yes" }), [])).toMatchObject({ owner: false, from: "a message that names no sender" });
    expect(steeredMessage({ role: "user", content: "x", provenance: { kind: "external_user" }, __openclaw: { senderIsOwner: true } }, [])?.owner).toBe(true);
    // Metadata of the wrong shape is no sender.
    for (const bad of [null, "42", ["42"], { senderId: 42 }, { transport: "telegram" }]) {
      expect(steeredMessage({ role: "user", content: "x", __openclaw: bad }, ["42"])?.owner, JSON.stringify(bad)).toBe(false);
    }
    // A provenance of no known kind is read as none.
    expect(steeredMessage({ role: "user", content: "x", provenance: { kind: "elsewhere" }, __openclaw: { senderIsOwner: true } }, [])?.owner).toBe(true);
    expect(steeredMessage({ role: "user", content: "x", provenance: "inter_session", __openclaw: { senderIsOwner: true } }, [])?.owner).toBe(true);
  });

  it("names a long id only in part", () => {
    const id = "x".repeat(500);
    expect(steeredMessage({ role: "user", content: "x", __openclaw: { senderId: id } }, [])?.from).toBe(`a message from sender "${"x".repeat(200)}"`);
    expect(steeredMessage({ role: "user", content: "x", provenance: { ...ANNOUNCE, sourceSessionKey: id } }, [])?.from).toContain(`"${"x".repeat(200)}")`);
  });

  it("never throws and never calls a message the owner's unless the host or ownerIds says so, for any message", () => {
    const value = fc.anything({ maxDepth: 3 });
    const message = fc.record(
      {
        role: fc.constantFrom("user", "assistant", "custom", 7),
        content: fc.oneof(fc.string(), fc.array(fc.record({ type: fc.constantFrom("text", "image"), text: value }), { maxLength: 3 }), value),
        provenance: fc.oneof(value, fc.record({ kind: fc.constantFrom("external_user", "inter_session", "internal_system", "x"), sourceTool: value, sourceSessionKey: value })),
        __openclaw: fc.oneof(value, fc.record({ senderIsOwner: fc.oneof(fc.boolean(), value), senderId: fc.oneof(fc.constantFrom("42", "43"), value) }, { requiredKeys: [] })),
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(message, fc.constantFrom<string[]>([], ["42"]), (m, ownerIds) => {
        const read = steeredMessage(m, ownerIds);
        if (m.role !== "user") return read === null;
        const meta = m.__openclaw as { senderIsOwner?: unknown; senderId?: unknown } | null | undefined;
        const vouched = (meta !== null && typeof meta === "object" && (meta.senderIsOwner === true || (meta.senderIsOwner !== false && typeof meta.senderId === "string" && ownerIds.includes(meta.senderId))));
        const kind = (m.provenance as { kind?: unknown } | null | undefined)?.kind;
        if (read?.owner === true) return vouched && kind !== "inter_session" && kind !== "internal_system";
        return read !== null && typeof read.from === "string" && typeof read.text === "string";
      }),
      { numRuns: 500 },
    );
  });
});
