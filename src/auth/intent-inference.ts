import type { ActionClass } from "../core/action-classes.js";
import type { IntentLexiconConfig } from "./config.js";

type SideEffectClass = Exclude<ActionClass, "read">;
export type IntentLexicon = Readonly<Record<SideEffectClass, readonly string[]>>;

/**
 * Built-in verbs per class. Deliberately narrow: a word that is as often a noun ("mail", "text",
 * "message", "order") is left out, because inferring too little only blocks a call the owner can
 * then approve or declare, while inferring too much authorises what was never asked for.
 */
export const DEFAULT_INTENT_LEXICON: IntentLexicon = {
  write: ["write", "wrote", "written", "edit", "modify", "update", "create", "delete", "remove", "rename", "save", "append", "overwrite", "commit", "mkdir"],
  send: ["send", "sent", "reply", "replied", "forward", "tweet", "publish", "notify", "dm", "invite", "upload"],
  exec: ["run", "ran", "execute", "install", "deploy", "compile", "restart", "reboot", "kill", "launch"],
  trade: ["buy", "bought", "sell", "sold", "trade", "pay", "paid", "purchase", "invest", "swap", "withdraw", "transfer"],
};

/** Builds the lexicon in force from the config: the built-in words plus (or replaced by) the configured ones. */
export function buildLexicon(words: IntentLexiconConfig, replace: boolean): IntentLexicon {
  const pick = (c: SideEffectClass): readonly string[] => {
    const extra = (words[c] ?? []).map(normaliseWord);
    return replace ? extra : [...DEFAULT_INTENT_LEXICON[c], ...extra];
  };
  return { write: pick("write"), send: pick("send"), exec: pick("exec"), trade: pick("trade") };
}

function normaliseWord(word: string): string {
  return word.normalize("NFKC").toLowerCase().trim();
}

// Regular inflections of a lexicon verb; irregular ones (sent, ran, sold) are lexicon entries.
const SUFFIXES = ["", "s", "es", "ed", "d", "ing"];

function inflections(word: string): string[] {
  const out = SUFFIXES.map((s) => word + s);
  if (word.endsWith("e")) out.push(word.slice(0, -1) + "ing");
  // Doubled final consonant (run → running); the spurious forms it adds for other verbs are not words.
  const last = word.at(-1);
  if (last !== undefined && /[bcdfgklmnprstvz]/.test(last)) out.push(word + last + "ing", word + last + "ed");
  return out;
}

/** Indexes a lexicon once: every accepted token (or phrase of tokens) mapped to its class. */
export class IntentInferrer {
  private readonly single = new Map<string, Set<SideEffectClass>>();
  private readonly phrases: { tokens: string[]; cls: SideEffectClass }[] = [];

  constructor(lexicon: IntentLexicon = DEFAULT_INTENT_LEXICON) {
    for (const cls of ["write", "send", "exec", "trade"] as const) {
      for (const entry of lexicon[cls]) {
        const tokens = tokenize(entry);
        if (tokens.length === 0) continue;
        if (tokens.length === 1) {
          for (const form of inflections(tokens[0] as string)) {
            const classes = this.single.get(form) ?? new Set<SideEffectClass>();
            classes.add(cls);
            this.single.set(form, classes);
          }
        } else {
          this.phrases.push({ tokens, cls });
        }
      }
    }
  }

  /**
   * The classes a message asks for: `read` always (observing is implied by any request) plus each
   * class with a lexicon word among the message's words. Deterministic: the same text gives the
   * same scope; the caller intersects it with what the source may authorise.
   */
  infer(text: string): Set<ActionClass> {
    const out = new Set<ActionClass>(["read"]);
    const tokens = tokenize(text);
    for (const t of tokens) {
      for (const cls of this.single.get(t) ?? []) out.add(cls);
    }
    for (const { tokens: phrase, cls } of this.phrases) {
      if (containsRun(tokens, phrase)) out.add(cls);
    }
    return out;
  }
}

/** Lower-cased NFKC words of letters and digits; apostrophes inside words are kept ("don't"). */
export function tokenize(text: string): string[] {
  return text.normalize("NFKC").toLowerCase().match(/[\p{L}\p{N}]+(?:['’][\p{L}]+)*/gu) ?? [];
}

function containsRun(tokens: readonly string[], run: readonly string[]): boolean {
  outer: for (let i = 0; i + run.length <= tokens.length; i++) {
    for (let j = 0; j < run.length; j++) if (tokens[i + j] !== run[j]) continue outer;
    return true;
  }
  return false;
}
