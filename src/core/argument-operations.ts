import type { ActionClass } from "./action-classes.js";

/**
 * The operation a side-effecting tool performs, at the grain an owner speaks of operations (send,
 * pay, delete, invite, remove), and the words by which an owner asks for it. Argument provenance
 * lets a call run unasked only when the owner's words name its operation: values the owner vouched
 * for, put to an operation the owner never asked for, are the attacker's call, not the owner's.
 */
export interface ToolOperation {
  /** The operation's name as the prompt shows it (`pay`, `delete`, `invite`). */
  readonly name: string;
  /**
   * Words (or phrases) that ask for it, as an owner asks: the plain form only ("send", "pay").
   * "my friend sent me", "Bob posted in general" and "who is invited" tell of an operation; they
   * do not ask for one.
   */
  readonly words: readonly string[];
  /** Deleting, removing people, moving money: cannot be taken back, so the owner must name it with its target. */
  readonly irreversible: boolean;
}

/** What an owner may configure per tool (`toolOperations`); anything left out is derived from the tool's name. */
export interface ToolOperationConfig {
  readonly words?: readonly string[];
  readonly irreversible?: boolean;
}
export type ToolOperationTable = Readonly<Record<string, ToolOperationConfig>>;

/**
 * Verbs an owner uses for each operation, keyed by the verb a tool's name starts with. Narrow on
 * purpose: a word that names two operations lets the owner's request for one vouch for the other,
 * so `delete` is not a way to say `send`, and only operations of the same effect share words
 * (`remove` and `delete` both take something away). Words as often nouns as verbs ("email",
 * "message", "mail") are left out: "the email from David" asks for nothing.
 */
const OPERATION_WORDS: ReadonlyMap<string, readonly string[]> = new Map([
  ["send", ["send", "forward", "reply", "tell", "notify", "dm", "write", "post", "contact"]],
  ["post", ["post", "publish", "upload", "write", "reply", "send"]],
  ["share", ["share", "give access", "grant"]],
  ["invite", ["invite"]],
  ["add", ["add", "include", "invite", "append", "put"]],
  ["append", ["append", "add", "include", "put", "write"]],
  ["create", ["create", "schedule", "set up", "remind", "save"]],
  ["update", ["update", "change", "modify", "edit", "adjust", "correct", "rename"]],
  ["reschedule", ["reschedule", "move", "postpone", "shift", "change"]],
  ["reserve", ["reserve", "reservation", "book"]],
  ["schedule", ["schedule", "set up", "plan"]],
  ["delete", ["delete", "remove", "erase", "trash"]],
  ["remove", ["remove", "delete", "kick", "ban"]],
  ["cancel", ["cancel", "call off", "delete", "remove"]],
  ["pay", ["pay", "transfer", "refund", "wire", "send money"]],
]);

/** Verbs whose effect cannot be taken back: the owner must name the operation together with its target. */
const IRREVERSIBLE_VERBS: ReadonlySet<string> = new Set(["delete", "remove", "cancel", "erase", "destroy", "purge", "revoke", "kick", "ban", "wipe", "drop", "pay", "transfer", "withdraw", "refund"]);

/**
 * The operation of `tool`: the owner's table entry where there is one, else read off the tool's
 * name (its first word is its verb: `send_money`, `deleteFile`, `remove-user`). A `trade` tool
 * moves money whatever its verb, so the words for paying also ask for it and it is irreversible.
 */
export function operationOf(table: ToolOperationTable, tool: string, action: ActionClass): ToolOperation {
  const verb = firstWord(tool);
  const moneyWords = action === "trade" ? (OPERATION_WORDS.get("pay") ?? []) : [];
  const derived = [...(OPERATION_WORDS.get(verb) ?? [verb]), ...moneyWords];
  const configured = Object.prototype.hasOwnProperty.call(table, tool) ? table[tool] : undefined;
  return {
    name: action === "trade" && verb !== "pay" ? `${verb} (moves money)` : verb,
    words: configured?.words ?? derived,
    irreversible: configured?.irreversible ?? (action === "trade" || IRREVERSIBLE_VERBS.has(verb)),
  };
}

function firstWord(tool: string): string {
  const spaced = tool.replace(/([a-z0-9])([A-Z])/gu, "$1 $2").toLowerCase();
  return spaced.split(/[^a-z0-9]+/u).find((w) => w !== "") ?? spaced;
}
