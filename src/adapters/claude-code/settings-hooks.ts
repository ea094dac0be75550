import { isRecord } from "../../core/json-record.js";

/**
 * provenant's entries in a Claude Code `settings.json` `hooks` block: added next to whatever
 * hooks are there, recognised again by their command (the hook entry point and `claude-code`),
 * and removed exactly. Pure: values in, a new settings object out.
 */
export const HOOKED_EVENTS = ["SessionStart", "UserPromptSubmit", "UserPromptExpansion", "PreToolUse", "PreSkillShellCommand", "PostToolUse", "PostToolUseFailure", "InstructionsLoaded", "DirectoryAdded", "Stop", "SessionEnd"] as const;
const TOOL_EVENTS: ReadonlySet<string> = new Set(["PreToolUse", "PreSkillShellCommand", "PostToolUse", "PostToolUseFailure"]);

/** Claude Code waits this long (seconds) for a hook before going on without it. */
const HOOK_TIMEOUT_S = 30;
/**
 * PreToolUse may wait for the owner's answer in the console (`approvalWaitSeconds`): its timeout is
 * longer, and the hook is told it (`--timeout`) so that it always answers before Claude Code gives
 * up on it (a timed-out hook gives no verdict).
 */
export const PRE_TOOL_USE_TIMEOUT_S = 120;

export class SettingsError extends Error {
  override readonly name = "SettingsError";
}

type Json = Record<string, unknown>;

/** A command provenant installed: its hook entry point, told the host `claude-code`. */
export function isProvenantCommand(command: unknown): boolean {
  return typeof command === "string" && /(hook-main\.js['"]?|provenant['"]? hook) claude-code(\s|$)/.test(command);
}

function hooksOf(settings: Json): Json {
  const hooks = settings["hooks"];
  if (hooks === undefined) return Object.create(null) as Json;
  if (!isRecord(hooks)) throw new SettingsError("`hooks` is not an object");
  return Object.assign(Object.create(null) as Json, hooks);
}

/** `settings` without provenant's hook entries (matcher groups left empty go too). */
export function withoutProvenantHooks(settings: Json): Json {
  const hooks = hooksOf(settings);
  for (const event of Object.keys(hooks)) {
    const groups = hooks[event];
    if (!Array.isArray(groups)) continue;
    const kept = groups.flatMap((group: unknown) => {
      if (!isRecord(group) || !Array.isArray(group["hooks"])) return [group];
      const inner = (group["hooks"] as unknown[]).filter((h) => !(isRecord(h) && isProvenantCommand(h["command"])));
      if (inner.length === (group["hooks"] as unknown[]).length) return [group];
      return inner.length === 0 ? [] : [{ ...group, hooks: inner }];
    });
    if (kept.length === 0) delete hooks[event];
    else hooks[event] = kept;
  }
  const out: Json = { ...settings };
  if (Object.keys(hooks).length === 0) delete out["hooks"];
  else out["hooks"] = { ...hooks };
  return out;
}

/** `settings` with provenant's hook entries, once each (installing twice changes nothing). */
export function withProvenantHooks(settings: Json, command: string): Json {
  if (!isProvenantCommand(command)) throw new SettingsError(`${JSON.stringify(command)} is not a provenant hook command`);
  const base = withoutProvenantHooks(settings);
  const hooks = hooksOf(base);
  for (const event of HOOKED_EVENTS) {
    const existing = hooks[event];
    if (existing !== undefined && !Array.isArray(existing)) throw new SettingsError(`hooks.${event} is not a list`);
    const entry = event === "PreToolUse" ? { type: "command", command: `${command} --timeout ${PRE_TOOL_USE_TIMEOUT_S}`, timeout: PRE_TOOL_USE_TIMEOUT_S } : { type: "command", command, timeout: HOOK_TIMEOUT_S };
    const group = TOOL_EVENTS.has(event) ? { matcher: "*", hooks: [entry] } : { hooks: [entry] };
    hooks[event] = [...((existing as unknown[] | undefined) ?? []), group];
  }
  return { ...base, hooks: { ...hooks } };
}
