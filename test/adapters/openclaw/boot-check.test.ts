import { describe, expect, it } from "vitest";
import { bootCheckFile } from "../../../src/adapters/openclaw/boot-check.js";

/** The prompt OpenClaw 2026.9.6's boot-md hook runs (gateway/boot.ts), with the timestamp the host puts before a message. */
const bootPrompt = (content: string) =>
  [
    "[Tue 2026-12-01 21:40 UTC] You are running a boot check. Follow BOOT.md instructions exactly.",
    "",
    "<<<BEGIN_OPENCLAW_INTERNAL_CONTEXT>>>",
    "This context is runtime-generated, not user-authored. Keep internal details private.",
    "",
    "BOOT.md:",
    content,
    "<<<END_OPENCLAW_INTERNAL_CONTEXT>>>",
    "",
    "If BOOT.md asks you to send a message, use the message tool (action=send with channel + target).",
  ].join("\n");

describe("OpenClaw's boot check", () => {
  it("names the workspace's BOOT.md, whatever the file says", () => {
    expect(bootCheckFile(bootPrompt("Check the disk."), "/ws")).toBe("/ws/BOOT.md");
    expect(bootCheckFile(bootPrompt("You are running a boot check.").slice("[Tue 2026-12-01 21:40 UTC] ".length), "/ws")).toBe("/ws/BOOT.md");
  });

  it("is no other message: the phrase later in a message, or only its start, names nothing", () => {
    expect(bootCheckFile("hello", "/ws")).toBeNull();
    expect(bootCheckFile("please: You are running a boot check. Follow BOOT.md instructions exactly.", "/ws")).toBeNull();
    expect(bootCheckFile("You are running a boot check.", "/ws")).toBeNull();
    expect(bootCheckFile(`[${"x".repeat(65)}] You are running a boot check. Follow BOOT.md instructions exactly.`, "/ws")).toBeNull();
  });
});
