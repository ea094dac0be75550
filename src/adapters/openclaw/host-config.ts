import type { PluginApi } from "./sdk-types.js";

/** The plugin's id in OpenClaw (its manifest, and its entry in OpenClaw's configuration). */
export const PLUGIN_ID = "provenant";

/**
 * A value of OpenClaw's own configuration (`api.config`) at a key path, or undefined: the plugin
 * reads the host's settings it depends on without trusting their shape.
 */
export function hostConfigValue(config: unknown, path: readonly string[]): unknown {
  let here = config;
  for (const key of path) {
    if (here === null || typeof here !== "object" || Array.isArray(here) || !Object.hasOwn(here, key)) return undefined;
    here = (here as Record<string, unknown>)[key];
  }
  return here;
}

/**
 * OpenClaw's configuration as it stands now, not only as it was at registration: a host may
 * apply a hot reload without registering plugins again. (It may throw; callers decide.)
 */
export function currentHostConfig(api: Pick<PluginApi, "config" | "runtime">): unknown {
  return api.runtime?.config?.current?.() ?? api.config;
}

/**
 * Whether an OpenClaw configuration enables this plugin: its entry says so (`openclaw plugins
 * install` writes `enabled: true`), plugins are not off as a whole, and neither the allow-list
 * nor the deny-list keeps it out. Anything less reads as not enabled.
 */
export function enablesPlugin(config: unknown): boolean {
  if (hostConfigValue(config, ["plugins", "enabled"]) === false) return false;
  if (hostConfigValue(config, ["plugins", "entries", PLUGIN_ID, "enabled"]) !== true) return false;
  const allow = hostConfigValue(config, ["plugins", "allow"]);
  if (Array.isArray(allow) && !allow.includes(PLUGIN_ID)) return false;
  const deny = hostConfigValue(config, ["plugins", "deny"]);
  return !(Array.isArray(deny) && deny.includes(PLUGIN_ID));
}
