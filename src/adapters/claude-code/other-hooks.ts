import { readFileSync } from "node:fs";
import { isRecord } from "../../core/json-record.js";
import { regularFileSize } from "../../state/file-kind.js";
import { addsHookSources } from "./launch-directories.js";
import { claudeSettings } from "./settings-files.js";
import { withoutProvenantHooks } from "./settings-hooks.js";

/** Where Claude Code reads the settings an administrator manages, hooks included (Linux). */
const MANAGED_SETTINGS = "/etc/claude-code/managed-settings.json";

/**
 * Whether a hook other than provenant's may run in the session: true unless every place Claude
 * Code takes hooks from is seen to hold none. Its settings files (the user's, the project's, the
 * local one, the managed one) name no other command hook, no plugin is enabled (a plugin brings its
 * hooks), and the command line above `pid` adds no settings file or plugin directory. Asked where
 * the transcript, which records what other hooks printed (hook-output.ts), cannot be read.
 */
export function mayRunOtherHooks(projectDir: string, home: string, pid: number | undefined): boolean {
  if (claudeSettings(projectDir, home).some((s) => enablesPlugins(s) || hasOtherHooks(s))) return true;
  if (managedSettingsMayHaveHooks()) return true;
  return pid === undefined || addsHookSources(pid) !== false;
}

function managedSettingsMayHaveHooks(): boolean {
  if (regularFileSize(MANAGED_SETTINGS) === null) return false;
  try {
    const settings: unknown = JSON.parse(readFileSync(MANAGED_SETTINGS, "utf8"));
    return enablesPlugins(settings) || hasOtherHooks(settings);
  } catch {
    // Unread here, it may still be read by Claude Code: counted as holding hooks.
    return true;
  }
}

function enablesPlugins(settings: unknown): boolean {
  const plugins = (settings as { enabledPlugins?: unknown } | null)?.enabledPlugins;
  if (plugins === undefined) return false;
  if (plugins === null || typeof plugins !== "object" || Array.isArray(plugins)) return true;
  return Object.values(plugins).some((on) => on !== false);
}

/** Any hook in `settings` that is not a command hook of provenant's (what is left once provenant's are taken out). A `hooks` of no known shape counts as one. */
function hasOtherHooks(settings: unknown): boolean {
  if (!isRecord(settings)) return false;
  try {
    return withoutProvenantHooks(settings)["hooks"] !== undefined;
  } catch {
    return true;
  }
}
