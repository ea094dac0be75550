import { isOwnContext } from "./own-context.js";
import { isProvenantCommand } from "./settings-hooks.js";

/**
 * What a hook other than provenant's put before the model, as Claude Code 2.1.332 records it in
 * the session's transcript (an `attachment` entry): a hook's added context (`additionalContext`),
 * the plain output of a SessionStart, UserPromptSubmit or UserPromptExpansion hook, the answer of
 * an asynchronous hook, a hook's blocking reason and its reason to stop. Claude Code sends each to
 * the model with no tool call, as context of the system's own. Their text is what the hook's
 * command printed: a memory plugin's recall of other sessions, a ticket an issue tracker holds, a
 * page a script fetched. Whoever wrote it, it is not the owner's words.
 *
 * A SessionStart hook may also answer with an `initialUserMessage`, which Claude Code submits as
 * the session's first prompt, through UserPromptSubmit like one the owner typed: it is found in
 * that hook's recorded output (`stdout`), and that prompt's words are not the owner's either.
 *
 * Not another hook's: Claude Code's own notes (`isOwnText`), provenant's own notices
 * (own-context.ts), and the output of provenant's own command.
 */

/** The hook events whose plain output Claude Code hands the model (its own list). */
const OUTPUT_SHOWN: ReadonlySet<string> = new Set(["SessionStart", "UserPromptSubmit", "UserPromptExpansion"]);

type Fields = Readonly<Record<string, unknown>>;

const fields = (value: unknown): Fields => (value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Fields) : {});
const text = (value: unknown): boolean => typeof value === "string" && value.trim() !== "";
/** The hook's event, for naming it ("a SessionStart hook"). */
const hookOf = (attachment: Fields): string => (typeof attachment["hookEvent"] === "string" && /^[A-Za-z]{1,64}$/u.test(attachment["hookEvent"]) ? `${attachment["hookEvent"]} hook` : "hook");

/** Every type of attachment that carries a hook's output has this in its name. */
export const HOOK_OUTPUT_MARK = "hook_";

export interface HookOutput {
  /** What it is, for the reason given the owner. */
  readonly what: string;
  /** It is a prompt the hook submitted in the owner's place (`initialUserMessage`). */
  readonly asPrompt: boolean;
}

/** What another hook showed the model in `attachment` (an entry's `attachment` field); null when it shows nothing of another hook's. */
export function otherHookOutput(attachment: unknown): HookOutput | null {
  const a = fields(attachment);
  if (isProvenantCommand(a["command"])) return null;
  if (a["type"] === "hook_success" && text(initialMessage(a["stdout"]))) return { what: `a ${hookOf(a)}'s message, submitted as the session's first prompt`, asPrompt: true };
  const what = shownOutput(a);
  return what === null ? null : { what, asPrompt: false };
}

/** The `initialUserMessage` of a hook's JSON answer; undefined for any other output. */
function initialMessage(stdout: unknown): unknown {
  if (typeof stdout !== "string" || !stdout.includes("initialUserMessage")) return undefined;
  try {
    return fields(fields(JSON.parse(stdout) as unknown)["hookSpecificOutput"])["initialUserMessage"];
  } catch {
    return undefined;
  }
}

function shownOutput(a: Fields): string | null {
  const event = typeof a["hookEvent"] === "string" ? a["hookEvent"] : "";
  const hook = hookOf(a);
  switch (a["type"]) {
    case "hook_additional_context": {
      if (a["isOwnText"] === true) return null;
      const content = Array.isArray(a["content"]) ? a["content"] : [a["content"]];
      const foreign = content.some((entry) => (typeof entry === "string" ? entry.trim() !== "" && !isOwnContext(event, entry) : entry !== undefined && entry !== null));
      return foreign ? `a ${hook}'s added context` : null;
    }
    case "hook_success":
      return OUTPUT_SHOWN.has(event) && text(a["content"]) ? `a ${hook}'s output` : null;
    case "async_hook_response": {
      const response = fields(a["response"]);
      return text(response["systemMessage"]) || text(fields(response["hookSpecificOutput"])["additionalContext"]) ? `an asynchronous ${hook}'s answer` : null;
    }
    case "hook_blocking_error": {
      const blocking = fields(a["blockingError"]);
      return text(blocking["blockingError"]) && !isProvenantCommand(blocking["command"]) ? `a ${hook}'s reason for blocking` : null;
    }
    case "hook_stopped_continuation":
      return text(a["message"]) ? `a ${hook}'s reason for stopping` : null;
    default:
      return null;
  }
}
