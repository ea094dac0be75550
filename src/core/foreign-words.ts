import { isTrustLevel, type TrustLevel } from "./trust-levels.js";

/**
 * Words of a message someone else wrote that the host files as the owner's: a message the owner
 * forwarded, a recording's transcript the host made the message. The turn that gets it is tainted
 * (the runtime context says what it is), but the host wrote the message into its transcript as the
 * owner's before it said so, and its memory may later copy the line into a file it loads into the
 * prompt of every later session (OpenClaw promotes transcript lines into `MEMORY.md`), where the
 * words would read as the owner's. Kept here, they are looked for in those files: a file that holds
 * them is labelled with the message's trust.
 *
 * A file holds a message when it holds a run of {@link RUN_WORDS} of its words in order (the
 * whole message, if it has fewer), compared as {@link wordsOf} spells them: the host's memory copies
 * a line with its white space collapsed and its start or end cut, which a run survives. Words put
 * into other words (a summary, a translation) are not found: nothing that reads text finds them.
 */

/** How many words in order make a message found in a file. */
export const RUN_WORDS = 6;
/** Words kept of each message: OpenClaw's memory keeps the first 280 characters of a line. */
export const MAX_WORDS = 64;
/** Messages kept; past it the oldest goes (and is no longer looked for). */
export const MAX_MESSAGES = 4096;
/** A message shorter than this (its words joined) is not kept: it would be found in too much else, and the host's memory promotes no line under 12 characters. */
export const MIN_CHARS = 8;
/** Paths kept per message or loss as labelled once: a bound on what a file of the store can grow to. */
export const MAX_LABELLED = 256;

export interface ForeignMessage {
  /** When the message came (ISO 8601). */
  readonly at: string;
  readonly sessionId: string;
  readonly level: TrustLevel;
  readonly words: readonly string[];
  /** Files already labelled for it: the owner who clears a label has vouched for the file. */
  readonly labelled: readonly string[];
}

/** The record was found corrupt and set aside: every file it is asked about is labelled once. */
export interface LostRecord {
  readonly at: string;
  readonly movedTo: string;
  readonly labelled: readonly string[];
}

export interface ForeignWordsHit {
  readonly path: string;
  readonly level: TrustLevel;
  readonly sessionId: string;
  readonly at: string;
  /** What the label says wrote the file. */
  readonly what: string;
}

const EDGE_PUNCTUATION = /^[\p{P}\p{S}]+|[\p{P}\p{S}]+$/gu;

/** A text's words: compatibility-folded, lower case, split at white space and control characters, without the punctuation around them. */
export function wordsOf(text: string): string[] {
  return text
    .normalize("NFKC")
    .toLowerCase()
    .split(/[\s\p{C}]+/u)
    .map((word) => word.replace(EDGE_PUNCTUATION, ""))
    .filter((word) => word !== "");
}

export class ForeignWordsFormatError extends Error {
  constructor(detail: string) {
    super(`foreign-words.json: ${detail}`);
    this.name = "ForeignWordsFormatError";
  }
}

const SEPARATOR = "\u0000";

export class ForeignWords {
  private messages: ForeignMessage[] = [];
  private lost: LostRecord | null = null;
  /** The messages' words, joined: made when first asked for (a record read to be looked in needs none). */
  private known: Set<string> | undefined;

  private keys(): Set<string> {
    this.known ??= new Set(this.messages.map((m) => m.words.join(SEPARATOR)));
    return this.known;
  }

  get size(): number {
    return this.messages.length;
  }

  get lostRecord(): LostRecord | null {
    return this.lost;
  }

  /** Whether anything is looked for: a file need be read only then. */
  get empty(): boolean {
    return this.messages.length === 0 && this.lost === null;
  }

  /** Keeps a message's words; false when there are too few to look for, or the same are kept. */
  record(sessionId: string, level: TrustLevel, text: string, at: string): boolean {
    const words = wordsOf(text).slice(0, MAX_WORDS);
    if (words.join(" ").length < MIN_CHARS) return false;
    const key = words.join(SEPARATOR);
    if (this.keys().has(key)) return false;
    this.messages.push({ at, sessionId, level, words, labelled: [] });
    this.known?.add(key);
    if (this.messages.length > MAX_MESSAGES) {
      for (const gone of this.messages.splice(0, this.messages.length - MAX_MESSAGES)) this.known?.delete(gone.words.join(SEPARATOR));
    }
    return true;
  }

  /** After a corrupt record was set aside: what it held is not known, so every file counts. */
  markLost(at: string, movedTo: string): void {
    this.lost = { at, movedTo, labelled: [] };
  }

  /**
   * What `text`, the content of the file at `path`, holds that was not labelled there before, and
   * notes it as labelled. A lost record counts for every file.
   */
  takeHits(path: string, text: string): ForeignWordsHit[] {
    const hits: ForeignWordsHit[] = [];
    if (this.lost !== null && !this.lost.labelled.includes(path)) {
      hits.push({ path, level: "untrusted", sessionId: "(unknown)", at: this.lost.at, what: `a message someone else wrote, as far as can be known: the record of such messages was found corrupt and set aside (${this.lost.movedTo})` });
      this.lost = { ...this.lost, labelled: withPath(this.lost.labelled, path) };
    }
    const pending = this.messages.filter((m) => !m.labelled.includes(path));
    if (pending.length === 0) return hits;
    const fileWords = wordsOf(text);
    const runs = new Map<number, Set<string>>();
    const runsOf = (n: number): Set<string> => {
      let set = runs.get(n);
      if (set === undefined) {
        set = new Set();
        for (let i = 0; i + n <= fileWords.length; i++) set.add(fileWords.slice(i, i + n).join(SEPARATOR));
        runs.set(n, set);
      }
      return set;
    };
    this.messages = this.messages.map((m) => {
      if (m.labelled.includes(path) || !holds(runsOf(Math.min(m.words.length, RUN_WORDS)), m.words)) return m;
      hits.push({ path, level: m.level, sessionId: m.sessionId, at: m.at, what: `the host's memory, with the words of a message someone else wrote (\u201c${m.words.slice(0, 8).join(" ")}\u2026\u201d, session ${m.sessionId})` });
      return { ...m, labelled: withPath(m.labelled, path) };
    });
    return hits;
  }

  serialize(): string {
    return `${JSON.stringify({ version: 1, messages: this.messages, lost: this.lost }, null, 2)}\n`;
  }

  /** Parses the file format; throws ForeignWordsFormatError on anything else (never a partial read). */
  static parse(text: string): ForeignWords {
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch (error) {
      throw new ForeignWordsFormatError(`not JSON (${error instanceof Error ? error.message : String(error)})`);
    }
    if (!isObject(raw)) throw new ForeignWordsFormatError("not an object");
    if (raw.version !== 1) throw new ForeignWordsFormatError(`version ${JSON.stringify(raw.version)} is not 1`);
    if (!Array.isArray(raw.messages)) throw new ForeignWordsFormatError("messages is not a list");
    if (raw.messages.length > MAX_MESSAGES) throw new ForeignWordsFormatError(`more than ${MAX_MESSAGES} messages`);
    const parsed = new ForeignWords();
    parsed.messages = raw.messages.map((m, i) => parseMessage(m, `messages[${i}]`));
    if (raw.lost !== null) {
      if (!isObject(raw.lost)) throw new ForeignWordsFormatError("lost is neither null nor an object");
      parsed.lost = { at: isoTime(raw.lost.at, "lost.at"), movedTo: text_(raw.lost.movedTo, "lost.movedTo"), labelled: paths(raw.lost.labelled, "lost.labelled") };
    }
    return parsed;
  }
}

function holds(runs: Set<string>, words: readonly string[]): boolean {
  const n = Math.min(words.length, RUN_WORDS);
  for (let i = 0; i + n <= words.length; i++) if (runs.has(words.slice(i, i + n).join(SEPARATOR))) return true;
  return false;
}

function withPath(labelled: readonly string[], path: string): string[] {
  return [...labelled, path].slice(-MAX_LABELLED);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

function text_(value: unknown, where: string): string {
  if (typeof value !== "string") throw new ForeignWordsFormatError(`${where} is not a string`);
  return value;
}

function isoTime(value: unknown, where: string): string {
  const s = text_(value, where);
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/u.test(s) || Number.isNaN(Date.parse(s))) throw new ForeignWordsFormatError(`${where} is not an ISO 8601 time`);
  return s;
}

function paths(value: unknown, where: string): string[] {
  if (!Array.isArray(value) || value.length > MAX_LABELLED || !value.every((p) => typeof p === "string")) throw new ForeignWordsFormatError(`${where} is not a list of at most ${MAX_LABELLED} paths`);
  return value as string[];
}

function parseMessage(value: unknown, where: string): ForeignMessage {
  if (!isObject(value)) throw new ForeignWordsFormatError(`${where} is not an object`);
  const extra = Object.keys(value).filter((k) => !["at", "sessionId", "level", "words", "labelled"].includes(k));
  if (extra.length > 0) throw new ForeignWordsFormatError(`${where} has unknown keys ${extra.join(", ")}`);
  if (!isTrustLevel(value.level)) throw new ForeignWordsFormatError(`${where}.level is not a trust level`);
  const words = value.words;
  if (!Array.isArray(words) || words.length === 0 || words.length > MAX_WORDS || !words.every((w) => typeof w === "string" && w !== "" && !/[\s\p{C}]/u.test(w))) {
    throw new ForeignWordsFormatError(`${where}.words is not a list of 1 to ${MAX_WORDS} words`);
  }
  return { at: isoTime(value.at, `${where}.at`), sessionId: text_(value.sessionId, `${where}.sessionId`), level: value.level, words: words as string[], labelled: paths(value.labelled, `${where}.labelled`) };
}
