import { hostConfigValue } from "./host-config.js";
import type { ForeignText } from "./runtime-context.js";

/**
 * OpenClaw's link understanding (`tools.links`): for a message holding a link, the host fetches
 * the page (and may run a configured command over it) and appends the result to the message,
 * after a blank line, with no mark of any kind. The model then reads the page inside the owner's
 * own message, where nothing tells it apart from what the owner typed.
 */

/** The config key that turns it on. */
export const LINK_UNDERSTANDING_KEY = "tools.links";

/**
 * Whether OpenClaw 2026.9.6 appends fetched pages to messages: `tools.links` is set, not
 * `enabled: false`, and names at least one model entry (with none the host fetches nothing). Its
 * `scope` is not read: a scope that turns it off for some chats only makes the plugin stricter there.
 */
export function linkUnderstandingOn(openclawConfig: unknown): boolean {
  const links = hostConfigValue(openclawConfig, ["tools", "links"]);
  if (links === null || typeof links !== "object") return false;
  const { enabled, models } = links as { enabled?: unknown; models?: unknown };
  return enabled !== false && Array.isArray(models) && models.length > 0;
}

/** The host's own test for a message worth fetching links for (any `http(s)://`, markdown links included). */
const LINK = /\bhttps?:\/\/\S+/i;

/**
 * A message, with link understanding on: the sender's text, and whether a fetched page may follow
 * it. The host appends pages after the whole message and a blank line, and only to a message that
 * holds a link; so a page can begin no earlier than the first blank line after the first link, and
 * everything from there on is read as someone else's (an owner's own later paragraphs included:
 * nothing marks where the page starts). A message whose first link no blank line follows had
 * nothing appended.
 */
export function withoutFetchedPages(text: string): { readonly text: string; readonly found: ForeignText | null } {
  const link = LINK.exec(text);
  if (link === null) return { text, found: null };
  const blank = text.indexOf("\n\n", link.index + link[0].length);
  if (blank < 0) return { text, found: null };
  return {
    text: text.slice(0, blank),
    found: { level: "untrusted", what: "what may be a page OpenClaw's link understanding fetched and appended (text after the first link's paragraph)" },
  };
}
