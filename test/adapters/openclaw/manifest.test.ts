import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { pluginConfigSchema } from "../../../src/adapters/openclaw/config-schema.js";
import { openclawManifest } from "../../../src/adapters/openclaw/manifest.js";
import { findRuntimeGaps } from "../../../src/adapters/openclaw/runtime-gaps.js";

const REPO = join(import.meta.dirname, "../../..");

describe("openclaw.plugin.json", () => {
  it("is what the generator makes from the current config schema (node scripts/openclaw-manifest.mjs after npm run build)", () => {
    expect(JSON.parse(readFileSync(join(REPO, "openclaw.plugin.json"), "utf8"))).toEqual(openclawManifest());
  });

  it("declares the plugin id, startup activation and the trusted tool policy", () => {
    const manifest = openclawManifest() as { id: string; activation: unknown; contracts: { trustedToolPolicies: string[]; tools: string[] } };
    expect(manifest.id).toBe("provenant");
    expect(manifest.activation).toEqual({ onStartup: true });
    expect(manifest.contracts.trustedToolPolicies).toEqual(["provenant-taint-policy"]);
    expect(manifest.contracts.tools.sort()).toEqual(["update_and_sign", "verify"]);
  });
});

describe("the runtime config schema handed to OpenClaw", () => {
  it("accepts a good configuration and names the key of a bad one", () => {
    expect(pluginConfigSchema.safeParse({ taintPolicy: { untrusted: "restrict" } }).success).toBe(true);
    const bad = pluginConfigSchema.safeParse({ taintPolicy: { untrusted: "maybe" }, nonsense: 1 });
    expect(bad.success).toBe(false);
    const paths = bad.error?.issues?.map((i) => i.path.join(".")) ?? [];
    expect(paths).toContain("taintPolicy.untrusted");
    expect(bad.error?.issues?.map((i) => i.message).join("\n")).toMatch(/nonsense/);
  });
});

describe("runtime gaps", () => {
  it("finds none in a complete configuration", () => {
    expect(findRuntimeGaps({ plugins: { entries: { provenant: { hooks: { allowConversationAccess: true } } } }, agents: { defaults: { model: { agentRuntime: { id: "auto" } } } } }, "provenant")).toEqual([]);
  });

  it("names Telegram's link previews while they are on: a link in a reply is fetched by Telegram's servers", () => {
    const base = { plugins: { entries: { provenant: { hooks: { allowConversationAccess: true } } } } };
    const keys = (telegram: Record<string, unknown>) => findRuntimeGaps({ ...base, channels: { telegram } }, "provenant").map((g) => g.key);
    expect(keys({ enabled: true })).toEqual(["channels.telegram.linkPreview"]);
    expect(keys({ linkPreview: true })).toEqual(["channels.telegram.linkPreview"]);
    expect(keys({ linkPreview: false })).toEqual([]);
    expect(keys({ enabled: false })).toEqual([]);
    expect(keys({ linkPreview: false, accounts: { a: {}, b: { linkPreview: true }, c: { enabled: false, linkPreview: true } } })).toEqual(["channels.telegram.accounts.b.linkPreview"]);
    expect(keys({ accounts: { a: { linkPreview: false }, b: {} } })).toEqual(["channels.telegram.linkPreview"]);
    expect(findRuntimeGaps(base, "provenant")).toEqual([]);
  });

  it("names Slack's media unfurling unless it is off, text unfurling when it is on, and Discord's embeds when they are not suppressed", () => {
    const base = { plugins: { entries: { provenant: { hooks: { allowConversationAccess: true } } } } };
    const keys = (channels: Record<string, unknown>) => findRuntimeGaps({ ...base, channels }, "provenant").map((g) => g.key);
    expect(keys({ slack: {} })).toEqual(["channels.slack.unfurlMedia"]);
    expect(keys({ slack: { unfurlMedia: false } })).toEqual([]);
    expect(keys({ slack: { unfurlMedia: false, unfurlLinks: true } })).toEqual(["channels.slack.unfurlLinks"]);
    expect(keys({ slack: { unfurlMedia: false, accounts: { a: {}, b: { unfurlMedia: true }, c: { unfurlLinks: true } } } })).toEqual(["channels.slack.accounts.b.unfurlMedia", "channels.slack.accounts.c.unfurlLinks"]);
    // Accounts that inherit the channel's setting are named once, by it.
    expect(keys({ slack: { unfurlLinks: false, accounts: { a: {}, b: {} } } })).toEqual(["channels.slack.unfurlMedia"]);
    expect(keys({ slack: { enabled: false } })).toEqual([]);
    // A channel that is no object is a configuration OpenClaw refuses: nothing to name.
    expect(keys({ slack: "on", telegram: 1 })).toEqual([]);
    expect(keys({ discord: {} })).toEqual([]);
    expect(keys({ discord: { suppressEmbeds: false } })).toEqual(["channels.discord.suppressEmbeds"]);
    expect(keys({ discord: { accounts: { a: { suppressEmbeds: false }, b: {} } } })).toEqual(["channels.discord.accounts.a.suppressEmbeds"]);
    const gap = findRuntimeGaps({ ...base, channels: { discord: { suppressEmbeds: false } } }, "provenant")[0];
    expect(gap?.message).toMatch(/^is not true: .*Discord's servers.*Set it to true\.$/);
  });

  it("names withheld hooks and runtimes that run tools outside before_tool_call", () => {
    const gaps = findRuntimeGaps(
      { plugins: { entries: { provenant: { hooks: { allowPromptInjection: false } } } }, agents: { defaults: { models: { "anthropic/x": { agentRuntime: { id: "claude-cli" } } } } } },
      "provenant",
    );
    expect(gaps.map((g) => g.key)).toEqual([
      "plugins.entries.provenant.hooks.allowConversationAccess",
      "plugins.entries.provenant.hooks.allowPromptInjection",
      'agents.defaults.models.anthropic/x.agentRuntime.id',
    ]);
    // The runtime's gap says what it costs: its turns are taken as untrusted.
    expect(gaps[2]?.message).toMatch(/^selects the "claude-cli" runtime: .*provenant does not protect turns on this runtime\. .*such turns count as untrusted/);
  });
});
