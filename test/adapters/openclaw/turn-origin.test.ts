import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { EXTERNAL_CONTENT_MARKER, originFromAgentContext, withHostOwnerVerdict } from "../../../src/adapters/openclaw/turn-origin.js";
import { classifyInitialTrust } from "../../../src/core/initial-trust.js";

const trustOf = (o: ReturnType<typeof originFromAgentContext>) =>
  classifyInitialTrust({ provider: o.provider, spawnedBy: o.spawnedBy, senderIsOwner: o.isOwner, senderId: o.senderId }).level;

describe("turn origin from OpenClaw's hook context", () => {
  it("a configured owner id is an owner; a known stranger is external; an anonymous channel sender untrusted", () => {
    expect(trustOf(originFromAgentContext({ messageProvider: "telegram", senderId: "1" }, ["1"], null, "hi"))).toBe("trusted");
    expect(trustOf(originFromAgentContext({ messageProvider: "telegram", senderId: "2" }, ["1"], null, "hi"))).toBe("external");
    expect(trustOf(originFromAgentContext({ messageProvider: "telegram" }, ["1"], null, "hi"))).toBe("untrusted");
  });

  it("a turn from another session is never the owner's", () => {
    const o = originFromAgentContext({ inputProvenance: { kind: "inter_session", sourceSessionKey: "agent:other:main" }, senderId: "1" }, ["1"], null, "x");
    expect(o.isOwner).toBe(false);
    expect(trustOf(withHostOwnerVerdict(o, true, "user"))).toBe("external");
  });

  it("a system turn carrying someone else's events is untrusted even though the host runs it as the owner; the owner's own schedules stay trusted", () => {
    // A heartbeat in the owner's DM session: the host gives it the owner's channel and owner bit,
    // and the adapter would fill in the owner's id as the conversation's last sender.
    const heartbeat = (sourceTool: string) => originFromAgentContext({ trigger: "heartbeat", messageProvider: "telegram", senderId: "1", inputProvenance: { kind: "internal_system", sourceTool } }, ["1"], null, "Follow the heartbeat ...");
    for (const source of ["hook", "exec", "exec-event", "notifications-event", "openclaw-plugin", ""]) {
      expect(trustOf(withHostOwnerVerdict(heartbeat(source), true, "heartbeat")), source).toBe("untrusted");
    }
    for (const source of ["heartbeat", "cron", "restart-sentinel"]) {
      expect(trustOf(withHostOwnerVerdict(heartbeat(source), true, "heartbeat")), source).toBe("trusted");
    }
  });

  it("the group is the conversation when it is not the sender's own", () => {
    expect(originFromAgentContext({ messageProvider: "telegram", senderId: "1", chatId: "-100" }, [], null, "x").group).toBe("-100");
    expect(originFromAgentContext({ messageProvider: "telegram", senderId: "1", chatId: "1" }, [], null, "x").group).toBeNull();
  });

  it("content OpenClaw wrapped as external is untrusted, whatever else the context says", () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), fc.option(fc.string()), fc.boolean(), (before, after, senderId, owner) => {
        const ctx = { trigger: "cron", ...(senderId === null ? {} : { senderId, messageProvider: "x" }) };
        const o = originFromAgentContext(ctx, senderId === null ? [] : [senderId], null, `${before}${EXTERNAL_CONTENT_MARKER}${after}`);
        expect(trustOf(o)).toBe("untrusted");
        expect(trustOf(withHostOwnerVerdict(o, owner ? undefined : false, "cron"))).toBe("untrusted");
      }),
    );
  });

  it("a run a hook dispatched is untrusted though the owner had OpenClaw not wrap it; the owner's own scheduled job stays trusted", () => {
    // With `allowUnsafeExternalContent` a webhook's text reaches the model as it came: what tells
    // the run from the owner's job is the provenance OpenClaw gives only the owner's jobs.
    const ownersJob = { trigger: "cron", inputProvenance: { kind: "internal_system" as const, sourceTool: "cron" } };
    expect(trustOf(originFromAgentContext(ownersJob, [], null, "[cron:j1 daily] sum up my inbox"))).toBe("trusted");
    fc.assert(
      fc.property(fc.string(), fc.option(fc.constantFrom("inter_session" as const, "external_user" as const)), fc.option(fc.boolean()), (text, kind, owner) => {
        fc.pre(!text.includes(EXTERNAL_CONTENT_MARKER));
        const ctx = { trigger: "cron", ...(kind === null ? {} : { inputProvenance: { kind, sourceTool: "cron" } }) };
        const o = withHostOwnerVerdict(originFromAgentContext(ctx, [], null, text), owner ?? undefined, "cron");
        expect(o.isOwner).toBe(false);
        expect(trustOf(o)).toBe("untrusted");
      }),
    );
  });

  it("the host saying 'not the owner' is never read as trusted", () => {
    fc.assert(
      fc.property(fc.option(fc.string({ minLength: 1 })), fc.option(fc.string({ minLength: 1 })), fc.option(fc.string()), (provider, senderId, trigger) => {
        const ctx = { ...(provider === null ? {} : { messageProvider: provider }), ...(senderId === null ? {} : { senderId }) };
        const o = withHostOwnerVerdict(originFromAgentContext(ctx, senderId === null ? [] : [senderId], null, "hi"), false, trigger ?? undefined);
        expect(o.isOwner).toBe(false);
        expect(trustOf(o)).not.toBe("trusted");
      }),
    );
  });
});
