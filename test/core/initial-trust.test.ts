import { describe, expect, it } from "vitest";
import { classifyInitialTrust } from "../../src/core/initial-trust.js";

describe("Initial Trust: Sender & Channel Classification", () => {
  it.each([
    ["Discord DM", "owner", { provider: "discord", senderIsOwner: true, senderId: "1" }, "trusted"],
    ["Discord DM", "non-owner", { provider: "discord", senderIsOwner: false, senderId: "2" }, "external"],
    ["Discord server channel", "owner in #general", { provider: "discord", senderIsOwner: true, senderId: "1" }, "trusted"],
    ["Discord server channel", "non-owner in #general", { provider: "discord", senderIsOwner: false, senderId: "3" }, "external"],
    ["Slack DM", "owner", { provider: "slack", senderIsOwner: true, senderId: "U1" }, "trusted"],
    ["Slack channel", "owner in #eng-general", { provider: "slack", senderIsOwner: true, senderId: "U1" }, "trusted"],
    ["Slack channel", "non-owner", { provider: "slack", senderIsOwner: false, senderId: "U2" }, "external"],
    ["Telegram DM", "owner", { provider: "telegram", senderIsOwner: true, senderId: "5" }, "trusted"],
    ["Telegram group", "owner", { provider: "telegram", senderIsOwner: true, senderId: "5" }, "trusted"],
    ["Telegram group", "non-owner", { provider: "telegram", senderIsOwner: false, senderId: "6" }, "external"],
    ["Signal DM", "owner", { provider: "signal", senderIsOwner: true, senderId: "+1" }, "trusted"],
    ["Cron job", "scheduled task", {}, "trusted"],
    ["Heartbeat", "periodic check", { provider: null }, "trusted"],
    ["Sub-agent", "sessions_spawn task", { provider: "telegram", spawnedBy: "agent:main:telegram:direct:5" }, "trusted"],
    ["Webhook", "external trigger", { provider: "webhook" }, "untrusted"],
  ] as const)("%s — %s → %s", (_channel, _scenario, origin, expected) => {
    expect(classifyInitialTrust(origin).level).toBe(expected);
  });

  it("is producer-based: the group plays no part", () => {
    expect(classifyInitialTrust({ provider: "telegram", senderIsOwner: true, senderId: "5" })).toEqual(
      classifyInitialTrust({ provider: "telegram", senderIsOwner: true, senderId: "5" }),
    );
  });
});

describe("Initial Trust: the reason shown with each level", () => {
  it("names the rule and who the message came from", () => {
    expect(classifyInitialTrust({ provider: null })).toEqual({ level: "trusted", reason: "system event (no message provider)" });
    expect(classifyInitialTrust({ provider: "telegram", spawnedBy: "main" })).toEqual({ level: "trusted", reason: "sub-agent of main" });
    expect(classifyInitialTrust({ provider: "telegram", senderIsOwner: true })).toEqual({ level: "trusted", reason: "owner message (telegram)" });
    expect(classifyInitialTrust({ provider: "telegram", senderId: "+1555" })).toEqual({ level: "external", reason: "non-owner sender +1555 (telegram)" });
    expect(classifyInitialTrust({ provider: "telegram" })).toEqual({ level: "untrusted", reason: "unknown sender (telegram)" });
  });
});
