import { hostConfigValue } from "./host-config.js";
/**
 * Configurations under which upstream OpenClaw cannot give the guard what it needs. Each finding
 * is logged as an error at start: an agent that looks protected but is not is worse than one
 * that is known to be unprotected.
 */
export interface RuntimeGap {
  readonly key: string;
  readonly message: string;
}

/** Runtimes whose tool calls all pass through OpenClaw's own `before_tool_call`. */
const ENFORCED_RUNTIMES = new Set(["auto", "embedded", "openclaw", "pi"]);

export function findRuntimeGaps(openclawConfig: unknown, pluginId: string): RuntimeGap[] {
  const gaps: RuntimeGap[] = [];
  const hooks = hostConfigValue(openclawConfig, ["plugins", "entries", pluginId, "hooks"]);
  if (hostConfigValue(hooks, ["allowConversationAccess"]) !== true) {
    gaps.push({
      key: `plugins.entries.${pluginId}.hooks.allowConversationAccess`,
      message:
        "is not true: OpenClaw withholds before_prompt_build, before_agent_run and agent_end from this plugin, so turns are not " +
        "classified by sender, the tool list is not narrowed and watermarks are not sealed at turn end; every tool call is judged " +
        "as coming from an unknown sender. Set it to true.",
    });
  }
  if (hostConfigValue(hooks, ["allowPromptInjection"]) === false) {
    gaps.push({
      key: `plugins.entries.${pluginId}.hooks.allowPromptInjection`,
      message: "is false: before_prompt_build is withheld, so the model is shown tools the policy restricts (calls are still checked).",
    });
  }
  for (const preview of LINK_PREVIEWS) {
    for (const key of previewsOn(openclawConfig, preview)) {
      gaps.push({
        key,
        message:
          `is not ${String(preview.off)}: when a reply holds ${preview.link}, ${preview.fetcher} fetch it to show a preview, so an injected ` +
          `instruction to put the conversation's data in a link in the reply sends it out with no tool call to hold. Set it to ${String(preview.off)}.`,
      });
    }
  }
  for (const { path, id } of runtimeIds(openclawConfig)) {
    if (ENFORCED_RUNTIMES.has(id)) continue;
    gaps.push({
      key: path,
      message:
        `selects the "${id}" runtime: CLI backends run their own tools, out of before_tool_call's reach, and native harness tools ` +
        "can be blocked but their results are not seen in full; provenant does not protect turns on this runtime. Their system " +
        "prompt is not in the sections OpenClaw's embedded runner marks, so what other plugins add to it cannot be told apart: " +
        "such turns count as untrusted, and every side effect the plugin does see asks.",
    });
  }
  return gaps;
}

/**
 * A channel's setting that has the chat service fetch a link in the bot's reply to preview it.
 * Telegram previews by default; OpenClaw's Slack plugin (2026.9.6) leaves media unfurling at
 * Slack's default (on) and turns text unfurling off; its Discord plugin suppresses embeds by default.
 */
interface LinkPreviewSetting {
  readonly channel: string;
  readonly key: string;
  /** The value that keeps previews off. */
  readonly off: boolean;
  readonly offByDefault: boolean;
  /** What in a reply is fetched, and by whom. */
  readonly link: string;
  readonly fetcher: string;
}

const LINK_PREVIEWS: readonly LinkPreviewSetting[] = [
  { channel: "telegram", key: "linkPreview", off: false, offByDefault: false, link: "a link", fetcher: "Telegram's servers" },
  { channel: "slack", key: "unfurlMedia", off: false, offByDefault: false, link: "a link to an image or a video", fetcher: "Slack's servers" },
  { channel: "slack", key: "unfurlLinks", off: false, offByDefault: true, link: "a link", fetcher: "Slack's servers" },
  { channel: "discord", key: "suppressEmbeds", off: true, offByDefault: true, link: "a link", fetcher: "Discord's servers" },
];

/**
 * Where a configured channel leaves a preview on: the channel's own setting, or each enabled
 * account's where accounts are configured (an account's setting wins).
 */
function previewsOn(config: unknown, preview: LinkPreviewSetting): string[] {
  const channel = hostConfigValue(config, ["channels", preview.channel]);
  if (channel === null || typeof channel !== "object" || hostConfigValue(channel, ["enabled"]) === false) return [];
  const on = (value: unknown) => (value === undefined ? !preview.offByDefault : value !== preview.off);
  const top = hostConfigValue(channel, [preview.key]);
  const own = `channels.${preview.channel}.${preview.key}`;
  const accounts = hostConfigValue(channel, ["accounts"]);
  if (accounts === null || typeof accounts !== "object" || Object.keys(accounts).length === 0) return on(top) ? [own] : [];
  return Object.keys(accounts)
    .filter((id) => hostConfigValue(accounts, [id, "enabled"]) !== false && on(hostConfigValue(accounts, [id, preview.key]) ?? top))
    .map((id) => (hostConfigValue(accounts, [id, preview.key]) === undefined ? own : `channels.${preview.channel}.accounts.${id}.${preview.key}`))
    .filter((key, at, keys) => keys.indexOf(key) === at);
}

/** Every `agentRuntime.id` in the configuration, with where it is. */
function runtimeIds(config: unknown): { path: string; id: string }[] {
  const found: { path: string; id: string }[] = [];
  const walk = (node: unknown, path: string, depth: number): void => {
    if (depth > 12 || node === null || typeof node !== "object") return;
    if (Array.isArray(node)) {
      node.forEach((child, i) => walk(child, `${path}[${i}]`, depth + 1));
      return;
    }
    for (const [key, value] of Object.entries(node)) {
      const here = path === "" ? key : `${path}.${key}`;
      if (key === "agentRuntime") {
        const id = hostConfigValue(value, ["id"]);
        if (typeof id === "string") found.push({ path: `${here}.id`, id });
        continue;
      }
      walk(value, here, depth + 1);
    }
  };
  walk(hostConfigValue(config, ["agents"]), "agents", 0);
  walk(hostConfigValue(config, ["models"]), "models", 0);
  return found;
}

