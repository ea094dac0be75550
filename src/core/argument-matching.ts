/**
 * The exact rules by which an argument value is recognised in a piece of context. They absorb the
 * ways a model re-serialises a value (case, whitespace, quoting and bracketing, number formats)
 * and nothing else: a value matches only as a whole run of whole tokens, so no value is ever found
 * inside a longer identifier, split across places, or near-matched. docs/argument-provenance.md
 * states these rules and their limits for owners.
 */

/** Characters that separate tokens besides whitespace: quoting, bracketing and list punctuation. */
const SEPARATORS = /[\s"'`,;()[\]{}<>|*\u2018\u2019\u201c\u201d]+/u;
/** A thousands separator: a comma between a digit and a group of exactly three digits. */
const THOUSANDS = /(\d),(?=\d{3}(?!\d))/gu;
const LEADING_PUNCTUATION = /^[.:!?#$\u20ac\u00a3\u00a5]+/u;
const LEADING_DASH = /^-+(?!\d)/u;
const TRAILING_PUNCTUATION = /[.:!?]+$/u;
const DECIMAL = /^-?\d+\.\d+$/u;

/**
 * Splits text into normalised tokens: NFC (composed and decomposed accents agree; compatibility
 * look-alikes such as fullwidth letters or superscript digits stay distinct, because a tool treats
 * them as different characters), lower case, separators dropped, sentence punctuation
 * trimmed from token ends, decimals written without trailing zeros ("98.70" and "98.7" agree;
 * "007" and "7" do not, because leading zeros can be part of an identifier).
 */
export function tokenize(text: string): string[] {
  const normal = text.normalize("NFC").toLowerCase().replace(THOUSANDS, "$1");
  const out: string[] = [];
  for (const raw of normal.split(SEPARATORS)) {
    const token = canonicalToken(raw);
    if (token !== "") out.push(token);
  }
  return out;
}

function canonicalToken(raw: string): string {
  let token = raw.replace(LEADING_PUNCTUATION, "").replace(LEADING_DASH, "").replace(TRAILING_PUNCTUATION, "");
  if (DECIMAL.test(token)) token = token.replace(/0+$/u, "").replace(/\.$/u, "");
  return token;
}

/** Renders a scalar argument the way the tokenizer expects it; non-finite numbers never match. */
export function scalarText(value: string | number | bigint): string {
  if (typeof value === "number") return Number.isFinite(value) ? String(value) : "\u0000";
  return String(value);
}

/** A token sequence as one map key (tokens never contain the separator character). */
export function joinTokens(tokens: readonly string[]): string {
  return tokens.join("\u0001");
}

/**
 * A value is weak when it carries too little to be told apart from a coincidence: a number with
 * at most four digits, or fewer than three letters and digits in all. Identifiers like file "13"
 * or event "24" are weak: the same digits appear in dates, sizes and counts everywhere, and ids
 * of different kinds share them, so finding one in trusted text proves nothing about where it came from.
 */
export function isWeak(tokens: readonly string[]): boolean {
  if (tokens.length !== 1) return tokens.join("").replace(/[^\p{L}\p{N}]/gu, "").length < 3;
  const token = tokens[0] ?? "";
  if (/^-?\d+(\.\d+)?$/u.test(token)) return token.replace(/\D/gu, "").length <= 4;
  return token.replace(/[^\p{L}\p{N}]/gu, "").length < 3;
}

const EMAIL = /^[^@\s]+@[^@\s]+\.[\p{L}]{2,}$/u;
const URL_WITH_SCHEME = /^[a-z][a-z0-9+.-]*:\/\/\S+$/u;
const HOST_LIKE = /^(www\.)?[\p{L}\p{N}-]+(\.[\p{L}\p{N}-]+)*\.[\p{L}]{2,}(\/\S*)?$/u;
const IBAN_LIKE = /^[a-z]{2}\d{2}[a-z0-9]{8,30}$/u;
const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/u;

/**
 * A reference points somewhere: a URL or host name, an e-mail address, an account number, a
 * phone number or any other run of seven or more digits. Inside a message body a reference is a
 * target in disguise (a link to click, an account to pay), so it is traced like a target.
 */
export function isReference(token: string): boolean {
  if (EMAIL.test(token) || URL_WITH_SCHEME.test(token) || IBAN_LIKE.test(token)) return true;
  if (/^\d+(\.\d+)?$/u.test(token)) return token.replace(/\D/gu, "").length >= 7 && !token.includes(".");
  if (HOST_LIKE.test(token) && !/^\d/u.test(token)) return true;
  if (ISO_DATE.test(token)) return false;
  const digits = token.replace(/[-+]/gu, "");
  return /^\d{7,}$/u.test(digits);
}

const KEY_VALUE = /^[^:]{1,60}:\s+(.+)$/u;
const LIST_MARKER = /^(-\s+)+/u;

/**
 * The whole fields of a tool output, as joined token sequences. Structured output (an object, an
 * array, or text that parses as JSON) yields its leaves; text yields each line and, for a
 * `key: value` line, the value. A trusted tool vouches for these fields as values of the owner's
 * own data, not for every word inside them: a channel name or an event description is one field,
 * and the words inside it were written by whoever named the channel.
 */
export function extractFields(output: unknown): string[] {
  const fields: string[] = [];
  collectFields(output, fields, 0);
  return fields;
}

function collectFields(value: unknown, out: string[], depth: number): void {
  if (depth > 64) return;
  if (typeof value === "string") {
    const trimmed = value.trim();
    if (depth === 0 && (trimmed.startsWith("{") || trimmed.startsWith("["))) {
      const parsed = parseJson(trimmed);
      if (parsed !== undefined) {
        collectFields(parsed, out, depth + 1);
        return;
      }
    }
    collectTextFields(value, out);
  } else if (typeof value === "number" || typeof value === "bigint") {
    pushField(scalarText(value), out);
  } else if (Array.isArray(value)) {
    for (const item of value) collectFields(item, out, depth + 1);
  } else if (value !== null && typeof value === "object") {
    for (const item of Object.values(value)) collectFields(item, out, depth + 1);
  }
}

function collectTextFields(text: string, out: string[]): void {
  pushField(text, out);
  if (!text.includes("\n") && !KEY_VALUE.test(text.trim())) return;
  for (const rawLine of text.split(/\r?\n/u)) {
    const line = rawLine.trim().replace(LIST_MARKER, "");
    if (line === "") continue;
    pushField(line, out);
    const kv = KEY_VALUE.exec(line);
    if (kv?.[1] !== undefined) pushField(kv[1], out);
  }
}

function pushField(text: string, out: string[]): void {
  const tokens = tokenize(text);
  if (tokens.length > 0) out.push(joinTokens(tokens));
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** Where one sentence of an owner's message ends: sentence punctuation before a space, or a line break. */
const SENTENCE_END = /(?<=[.!?;])\s+|\r?\n+/u;
/** A quoted span: text the owner quotes (a message to send, a title) says what to write, not what to do. */
const QUOTED_SPAN = /(?<=^|[\s(:])(['"\u2018\u201c])[^'"\u2018\u2019\u201c\u201d]*['"\u2019\u201d](?=$|[\s.,;:!?)])/gu;

/** One sentence of an owner's message: all its tokens, and the tokens outside quotes (where a request is made). */
export interface OwnerStatement {
  readonly tokens: string[];
  readonly request: string[];
}

/**
 * An owner message as its statements, one per sentence. Values the owner states together (an
 * account and the amount to pay it) sit in one sentence; "the landlord's account is X; also refund
 * the 10 my friend sent" states X and 10 apart. A value the owner writes across a sentence end
 * belongs to no sentence (see `vouchCall`).
 */
export function ownerStatements(text: string): OwnerStatement[] {
  return text
    .split(SENTENCE_END)
    .map((sentence) => ({ tokens: tokenize(sentence), request: tokenize(sentence.replace(QUOTED_SPAN, " ")) }))
    .filter((s) => s.tokens.length > 0);
}

const TOP_LEVEL_ITEM = /^- /u;

/**
 * The whole fields of a tool output grouped by record, each as joined token sequences: the items of
 * a listed output (a JSON array, or text whose lines at the margin start `- `, as YAML lists are
 * written), or the whole output as one record. An account with the amount paid to it, a file with its
 * id: what one record holds was stated together by whoever wrote the record.
 */
export function extractRecords(output: unknown): string[][] {
  const value = typeof output === "string" ? (parseListJson(output) ?? output) : output;
  if (Array.isArray(value)) return value.map((item) => extractFields(item));
  if (typeof value !== "string") return [extractFields(value)];
  const items: string[] = [];
  for (const line of value.split(/\r?\n/u)) {
    if (TOP_LEVEL_ITEM.test(line) || items.length === 0) items.push(line);
    else items[items.length - 1] += `\n${line}`;
  }
  return items.length > 1 && items.every((item) => TOP_LEVEL_ITEM.test(item)) ? items.map((item) => extractFields(item)) : [extractFields(value)];
}

function parseListJson(text: string): unknown[] | undefined {
  const trimmed = text.trim();
  if (!trimmed.startsWith("[")) return undefined;
  const parsed = parseJson(trimmed);
  return Array.isArray(parsed) ? parsed : undefined;
}
