import { z } from "zod";

/**
 * One Claude Code hook event, as its hooks receive it on stdin (the fields provenant reads; Claude
 * Code sends more, and adds fields over time, so others are ignored). Outside input: everything is
 * checked here, and a bad event is a HookEventError naming the field.
 */
export const HOOK_EVENT_NAMES = ["SessionStart", "UserPromptSubmit", "UserPromptExpansion", "PreToolUse", "PreSkillShellCommand", "PostToolUse", "PostToolUseFailure", "InstructionsLoaded", "DirectoryAdded", "Stop", "SubagentStop", "SessionEnd"] as const;
export type HookEventName = (typeof HOOK_EVENT_NAMES)[number];

/** A session id names a state entry and a file key: a bounded plain token, as Claude Code's UUIDs are. */
const sessionId = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/, "a token of letters, digits, '.', '_' and '-' (at most 128)");
const path = z.string().min(1).max(4096).refine((p) => p.startsWith("/") && !p.includes("\0"), "an absolute path without NUL");
const toolName = z.string().min(1).max(200);
/** How long a call ran (ms); anything else is as if absent: it only dates what the call wrote. */
const durationMs = z.number().nonnegative().finite().optional().catch(undefined);
// Kept as parsed (JSON.parse makes own properties only): a copy by assignment could let a
// `__proto__` key set a prototype.
const toolInput = z.custom<Readonly<Record<string, unknown>>>((v) => v !== null && typeof v === "object" && !Array.isArray(v), "an object");

const common = { session_id: sessionId, cwd: path };
/** A turn's prompt and the session's transcript, where what the prompt carried beside its text is found (prompt-attachments.ts). */
const turn = { prompt_id: z.string().min(1).max(200).optional(), transcript_path: path.optional() };

const schema = z.discriminatedUnion("hook_event_name", [
  z.object({ ...common, hook_event_name: z.literal("SessionStart"), source: z.string().max(64).optional() }),
  z.object({ ...common, hook_event_name: z.literal("UserPromptSubmit"), prompt: z.string(), ...turn }),
  // What a slash command or an MCP server's prompt expanded the owner's prompt into.
  z.object({ ...common, hook_event_name: z.literal("UserPromptExpansion"), expansion_type: z.string().max(64), command_name: z.string().max(4096).optional() }),
  z.object({ ...common, hook_event_name: z.literal("PreToolUse"), tool_name: toolName, tool_input: toolInput, tool_use_id: z.string().max(200).optional(), ...turn }),
  // A shell command a skill's or a slash command's text runs (`!\`cmd\``) before the prompt is
  // sent: no PostToolUse follows, and its output is part of the prompt.
  z.object({ ...common, hook_event_name: z.literal("PreSkillShellCommand"), tool_name: toolName, tool_input: toolInput, tool_use_id: z.string().max(200).optional(), command_name: z.string().max(4096).optional() }),
  z.object({
    ...common,
    hook_event_name: z.literal("PostToolUse"),
    tool_name: toolName,
    tool_input: toolInput,
    tool_response: z.unknown(),
    tool_use_id: z.string().max(200).optional(),
    duration_ms: durationMs,
  }),
  // A call that failed: `error` is what the model reads as its result (Claude Code 2.1.332: a
  // command's non-zero exit with all it printed, an MCP tool's error text).
  z.object({ ...common, hook_event_name: z.literal("PostToolUseFailure"), tool_name: toolName, tool_input: toolInput, error: z.unknown(), tool_use_id: z.string().max(200).optional(), duration_ms: durationMs }),
  // A file Claude Code put before the model as instructions (a memory file, a rule, an import).
  z.object({ ...common, hook_event_name: z.literal("InstructionsLoaded"), file_path: path }),
  // A directory the session works in from now on (`/add-dir`): its skills and commands are listed.
  z.object({ ...common, hook_event_name: z.literal("DirectoryAdded"), directory: path }),
  // The turn's end.
  z.object({ ...common, hook_event_name: z.literal("Stop"), ...turn }),
  z.object({ ...common, hook_event_name: z.literal("SubagentStop") }),
  z.object({ ...common, hook_event_name: z.literal("SessionEnd") }),
]);

export type HookEvent = z.infer<typeof schema>;

export class HookEventError extends Error {
  override readonly name = "HookEventError";
}

/** Hook input is small; anything beyond this is not an event Claude Code would send. */
export const MAX_HOOK_INPUT_BYTES = 64 * 1024 * 1024;

export function parseHookEvent(text: string): HookEvent {
  if (text.length > MAX_HOOK_INPUT_BYTES) throw new HookEventError(`hook input is larger than ${MAX_HOOK_INPUT_BYTES} bytes`);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new HookEventError(`hook input is not JSON (${error instanceof Error ? error.message : String(error)})`);
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) throw new HookEventError("hook input is not a JSON object");
  const name = (value as { hook_event_name?: unknown }).hook_event_name;
  if (typeof name !== "string" || !(HOOK_EVENT_NAMES as readonly string[]).includes(name)) {
    throw new HookEventError(`hook_event_name ${JSON.stringify(name)?.slice(0, 80) ?? "(missing)"} is not one of ${HOOK_EVENT_NAMES.join(", ")}`);
  }
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new HookEventError(`${name} event: ${issue === undefined ? "invalid" : `${issue.path.join(".") || "(root)"}: ${issue.message}`}`);
  }
  return parsed.data;
}

/** The tool a raw input names, when it names one: what a failure decision is about. */
export function toolNameOf(text: string): string | null {
  try {
    const value: unknown = JSON.parse(text);
    if (value === null || typeof value !== "object") return null;
    const name = (value as { tool_name?: unknown }).tool_name;
    return typeof name === "string" && name.length <= 200 ? name : null;
  } catch {
    return null;
  }
}
