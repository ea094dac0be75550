import { isRecord } from "./json-record.js";
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
 * A file holds a message when it holds {@link RUN_CHARS} of its characters in a row, or the whole
 * of a shorter piece the host's memory copies as a line of its own ({@link hostLines}), compared as
 * {@link fold} spells them. The host's memory collapses a line's white space and cuts it anywhere,
 * even inside a word, so the rule counts characters, not words: a run of words would miss a line
 * of a few long words cut in the last. Words put into other words (a summary, a translation) are
 * not found: nothing that reads text finds them.
 */

/** How many characters of a message in a row make it found in a file. */
export const RUN_CHARS = 32;
/** The pieces a message is indexed by, one every PIECE_CHARS characters: a run of RUN_CHARS starts at most PIECE_CHARS − 1 before one and so holds it whole. */
const PIECE_CHARS = RUN_CHARS / 2;
/** Characters kept of each message (Telegram's longest message); the rest is not looked for. */
export const MAX_CHARS = 4096;
/** Messages kept; past it the oldest goes (and is no longer looked for). */
export const MAX_MESSAGES = 1024;
/** A message or line shorter than this, folded, is not looked for: it would be found in too much else (the host's memory promotes no line under 12 characters, `User: ` included). */
export const MIN_CHARS = 8;
/** OpenClaw's session export wraps a message into lines of at most this many characters, at the last space before the limit. */
export const HOST_LINE_CHARS = 800;
/** Of each line, OpenClaw's memory copies the first 280 characters, `User: ` among them. */
export const HOST_SNIPPET_CHARS = 280 - "User: ".length;
/** Paths kept per message or loss as labelled once: a bound on what a file of the store can grow to. */
export const MAX_LABELLED = 256;

export interface ForeignMessage {
  /** When the message came (ISO 8601). */
  readonly at: string;
  readonly sessionId: string;
  readonly level: TrustLevel;
  /** The message's first MAX_CHARS characters (its white space collapsed, as the host's memory reads it), folded. */
  readonly text: string;
  /** Its lines the host's memory copies alone that are too short for a run ({@link hostLines}), folded: looked for whole. */
  readonly lines: readonly string[];
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

/** A text as it is compared: its words, one space between them. A piece of a text cut anywhere folds to a piece of the text's fold. */
export function fold(text: string): string {
  return wordsOf(text).join(" ");
}

/** `text`'s first `n` UTF-16 units, less one where the cut would part a surrogate pair (as the host cuts). */
function head(text: string, n: number): string {
  const pair = n > 0 && n < text.length && /[\uD800-\uDBFF]/u.test(text[n - 1]!) && /[\uDC00-\uDFFF]/u.test(text[n]!);
  return text.slice(0, pair ? n - 1 : n);
}

/** White space collapsed to one space and trimmed, as the host's session export writes a message. */
function collapse(text: string): string {
  return text.replace(/\s+/gu, " ").trim();
}

/**
 * The lines OpenClaw's session export makes of a message (`text`, collapsed), each as much as its
 * memory copies: at most HOST_LINE_CHARS characters, cut at the last space before the limit (or at
 * the limit, with none), and of each its first HOST_SNIPPET_CHARS. A message can be written so that
 * a line of its own is short (a few words before a word as long as a line): such a line, copied
 * alone, is too short for a run and is looked for whole.
 */
export function hostLines(text: string): string[] {
  const lines: string[] = [];
  let rest = text;
  while (rest !== "") {
    let cut = rest.length;
    if (rest.length > HOST_LINE_CHARS) {
      const space = rest.lastIndexOf(" ", HOST_LINE_CHARS);
      cut = space > 0 ? space : head(rest, HOST_LINE_CHARS).length;
    }
    lines.push(head(rest.slice(0, cut).trim(), HOST_SNIPPET_CHARS));
    rest = rest.slice(cut).trim();
  }
  return lines;
}

export class ForeignWordsFormatError extends Error {
  constructor(detail: string) {
    super(`foreign-words.json: ${detail}`);
    this.name = "ForeignWordsFormatError";
  }
}

export class ForeignWords {
  private messages: ForeignMessage[] = [];
  private lost: LostRecord | null = null;
  /** The messages' texts: made when first asked for (a record read to be looked in needs none). */
  private known: Set<string> | undefined;

  private keys(): Set<string> {
    this.known ??= new Set(this.messages.map((m) => m.text));
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

  /** Keeps a message; false when it is too short to look for, or the same is kept. */
  record(sessionId: string, level: TrustLevel, text: string, at: string): boolean {
    const kept = head(collapse(text), MAX_CHARS).trim();
    // Folding may lengthen a text (a compatibility form of several letters): cut again.
    const folded = head(fold(kept), MAX_CHARS).trim();
    if (folded.length < MIN_CHARS || this.keys().has(folded)) return false;
    const lines = [...new Set(hostLines(kept).map(fold))].filter((line) => line.length >= MIN_CHARS && line.length < RUN_CHARS);
    this.messages.push({ at, sessionId, level, text: folded, lines, labelled: [] });
    this.known?.add(folded);
    if (this.messages.length > MAX_MESSAGES) {
      for (const gone of this.messages.splice(0, this.messages.length - MAX_MESSAGES)) this.known?.delete(gone.text);
    }
    return true;
  }

  /** After a corrupt record was set aside: what it held is not known, so every file counts. */
  markLost(at: string, movedTo: string): void {
    this.lost = { at, movedTo, labelled: [] };
  }

  /**
   * What each of `files` (path and content) holds that was not labelled there before, and notes it
   * as labelled. A lost record counts for every file. The messages are indexed once for all files.
   */
  takeHits(files: readonly { readonly path: string; readonly text: string }[]): ForeignWordsHit[] {
    const hits: ForeignWordsHit[] = [];
    let index: Index | undefined;
    for (const { path, text } of files) {
      if (this.lost !== null && !this.lost.labelled.includes(path)) {
        hits.push({ path, level: "untrusted", sessionId: "(unknown)", at: this.lost.at, what: `a message someone else wrote, as far as can be known: the record of such messages was found corrupt and set aside (${this.lost.movedTo})` });
        this.lost = { ...this.lost, labelled: withPath(this.lost.labelled, path) };
      }
      if (!this.messages.some((m) => !m.labelled.includes(path))) continue;
      index ??= indexOf(this.messages);
      const found = held(fold(text), index);
      this.messages = this.messages.map((m, i) => {
        if (!found.has(i) || m.labelled.includes(path)) return m;
        hits.push({ path, level: m.level, sessionId: m.sessionId, at: m.at, what: `the host's memory, with the words of a message someone else wrote (\u201c${m.text.split(" ").slice(0, 8).join(" ")}\u2026\u201d, session ${m.sessionId})` });
        return { ...m, labelled: withPath(m.labelled, path) };
      });
    }
    return hits;
  }

  serialize(): string {
    return `${JSON.stringify({ version: 2, messages: this.messages, lost: this.lost }, null, 2)}\n`;
  }

  /** Parses the file format; throws ForeignWordsFormatError on anything else (never a partial read). */
  static parse(text: string): ForeignWords {
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch (error) {
      throw new ForeignWordsFormatError(`not JSON (${error instanceof Error ? error.message : String(error)})`);
    }
    if (!isRecord(raw)) throw new ForeignWordsFormatError("not an object");
    // Version 1 kept a message's first 64 words, folded: read as that text (what it did not keep is not looked for).
    if (raw.version !== 1 && raw.version !== 2) throw new ForeignWordsFormatError(`version ${JSON.stringify(raw.version)} is neither 1 nor 2`);
    if (!Array.isArray(raw.messages)) throw new ForeignWordsFormatError("messages is not a list");
    // Version 1 kept up to 4096 messages: the latest are kept, as if they had come one by one.
    const most = raw.version === 1 ? 4096 : MAX_MESSAGES;
    if (raw.messages.length > most) throw new ForeignWordsFormatError(`more than ${most} messages`);
    const parsed = new ForeignWords();
    const version = raw.version;
    parsed.messages = raw.messages.map((m, i) => parseMessage(m, `messages[${i}]`, version)).slice(-MAX_MESSAGES);
    if (raw.lost !== null) {
      if (!isRecord(raw.lost)) throw new ForeignWordsFormatError("lost is neither null nor an object");
      parsed.lost = { at: isoTime(raw.lost.at, "lost.at"), movedTo: text_(raw.lost.movedTo, "lost.movedTo"), labelled: paths(raw.lost.labelled, "lost.labelled") };
    }
    return parsed;
  }
}

/**
 * The messages by a hash of their pieces of PIECE_CHARS at every PIECE_CHARS-th character, and of
 * the first MIN_CHARS of their short lines: each entry is a message's place × MAX_CHARS + where in
 * its text (or in its lines, one after another). Hashes, not strings: a look slides over every
 * character of a file, and a hash rolls from one to the next without making a string; a hash
 * found is only a candidate, compared character by character.
 */
interface Index {
  readonly messages: readonly ForeignMessage[];
  readonly pieces: Map<number, number | number[]>;
  readonly lines: Map<number, number | number[]>;
}

function indexOf(messages: readonly ForeignMessage[]): Index {
  const pieces: Index["pieces"] = new Map();
  const lines: Index["lines"] = new Map();
  messages.forEach((m, key) => {
    for (let at = 0; at + PIECE_CHARS <= m.text.length; at += PIECE_CHARS) entered(pieces, hashOf(m.text, at, PIECE_CHARS), key * MAX_CHARS + at);
    m.lines.forEach((line, i) => entered(lines, hashOf(line, 0, MIN_CHARS), key * MAX_CHARS + i));
  });
  return { messages, pieces, lines };
}

/**
 * Which messages (by their place in the index) the folded `file` holds: a run of RUN_CHARS of a
 * message's text, or one of its short lines whole (between spaces or the file's ends). One pass over
 * the file: any run of RUN_CHARS holds one of the message's indexed pieces whole, and a piece
 * found is widened to the run around it.
 */
function held(file: string, { messages, pieces, lines }: Index): Set<number> {
  const found = new Set<number>();
  let line = hashOf(file, 0, MIN_CHARS);
  let piece = hashOf(file, 0, PIECE_CHARS);
  for (let j = 0; j + MIN_CHARS <= file.length && found.size < messages.length; j++) {
    if (j > 0) line = rolled(line, file, j - 1, MIN_CHARS, LINE_POWER);
    for (const entry of entries(lines, line)) {
      const key = Math.floor(entry / MAX_CHARS);
      const text = messages[key]!.lines[entry % MAX_CHARS]!;
      const end = j + text.length;
      if (file.startsWith(text, j) && (j === 0 || file[j - 1] === " ") && (end === file.length || file[end] === " ")) found.add(key);
    }
    if (j + PIECE_CHARS > file.length) continue;
    if (j > 0) piece = rolled(piece, file, j - 1, PIECE_CHARS, PIECE_POWER);
    for (const entry of entries(pieces, piece)) {
      const key = Math.floor(entry / MAX_CHARS);
      if (!found.has(key) && runThrough(file, j, messages[key]!.text, entry % MAX_CHARS) >= RUN_CHARS) found.add(key);
    }
  }
  return found;
}

const HASH_BASE = 0x01000193;

/** HASH_BASE to the power `n` − 1, modulo 2³²: what the character leaving a window of `n` weighs. */
function powerFor(n: number): number {
  let power = 1;
  for (let i = 1; i < n; i++) power = Math.imul(power, HASH_BASE);
  return power;
}

const LINE_POWER = powerFor(MIN_CHARS);
const PIECE_POWER = powerFor(PIECE_CHARS);

/** The hash of `text`'s `n` characters from `at` (modulo 2³²; a text too short hashes what it has, and is never compared). */
function hashOf(text: string, at: number, n: number): number {
  let hash = 0;
  for (let i = at; i < Math.min(at + n, text.length); i++) hash = (Math.imul(hash, HASH_BASE) + text.charCodeAt(i)) | 0;
  return hash;
}

/** The hash of the window of `n` after the one from `from`, whose hash is `hash`. */
function rolled(hash: number, text: string, from: number, n: number, power: number): number {
  return (Math.imul(hash - Math.imul(text.charCodeAt(from), power), HASH_BASE) + text.charCodeAt(from + n)) | 0;
}

function entered(map: Map<number, number | number[]>, hash: number, entry: number): void {
  const there = map.get(hash);
  if (there === undefined) map.set(hash, entry);
  else if (typeof there === "number") map.set(hash, [there, entry]);
  else there.push(entry);
}

const NONE: readonly number[] = [];

function entries(map: Map<number, number | number[]>, hash: number): readonly number[] {
  const there = map.get(hash);
  return there === undefined ? NONE : typeof there === "number" ? [there] : there;
}

/** How long the run is that `file` from `j` and `text` from `at` share, reaching back before both. */
function runThrough(file: string, j: number, text: string, at: number): number {
  let before = 0;
  while (before < j && before < at && file[j - before - 1] === text[at - before - 1]) before++;
  let after = 0;
  while (j + after < file.length && at + after < text.length && file[j + after] === text[at + after]) after++;
  return before + after;
}

function withPath(labelled: readonly string[], path: string): string[] {
  return [...labelled, path].slice(-MAX_LABELLED);
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

function parseMessage(value: unknown, where: string, version: 1 | 2): ForeignMessage {
  if (!isRecord(value)) throw new ForeignWordsFormatError(`${where} is not an object`);
  const keys = version === 1 ? ["at", "sessionId", "level", "words", "labelled"] : ["at", "sessionId", "level", "text", "lines", "labelled"];
  const extra = Object.keys(value).filter((k) => !keys.includes(k));
  if (extra.length > 0) throw new ForeignWordsFormatError(`${where} has unknown keys ${extra.join(", ")}`);
  if (!isTrustLevel(value.level)) throw new ForeignWordsFormatError(`${where}.level is not a trust level`);
  const at = isoTime(value.at, `${where}.at`);
  const sessionId = text_(value.sessionId, `${where}.sessionId`);
  const level = value.level;
  const labelled = paths(value.labelled, `${where}.labelled`);
  if (version === 1) {
    const words = value.words;
    if (!Array.isArray(words) || words.length === 0 || words.length > 64 || !words.every((w) => typeof w === "string" && w !== "" && !/[\s\p{C}]/u.test(w))) {
      throw new ForeignWordsFormatError(`${where}.words is not a list of 1 to 64 words`);
    }
    // One shorter than a run is looked for whole, as a message of this version would be.
    const text = head(words.join(" "), MAX_CHARS).trim();
    return { at, sessionId, level, text, lines: text.length < RUN_CHARS ? [text] : [], labelled };
  }
  const text = folded(value.text, `${where}.text`, MAX_CHARS);
  if (!Array.isArray(value.lines) || value.lines.length > MAX_CHARS / MIN_CHARS) throw new ForeignWordsFormatError(`${where}.lines is not a list of at most ${MAX_CHARS / MIN_CHARS} lines`);
  const lines = value.lines.map((line, i) => folded(line, `${where}.lines[${i}]`, RUN_CHARS - 1));
  return { at, sessionId, level, text, lines, labelled };
}

/** A folded text of 1 to `most` characters: words parted by one space (not checked to be folded: that would cost the fold). */
function folded(value: unknown, where: string, most: number): string {
  const text = text_(value, where);
  if (text === "" || text.length > most || /[^\S ]|\p{C}|^ | $|  /u.test(text)) throw new ForeignWordsFormatError(`${where} is not 1 to ${most} characters of words parted by one space`);
  return text;
}
