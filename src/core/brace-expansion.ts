/**
 * The words the shell makes of one word by brace expansion: `notes/{page,copy}.md` is
 * `notes/page.md notes/copy.md`, `part{1..3}` is `part1 part2 part3`, nested and in sequence
 * (`{a,b{1..2}}x`). The parser hands words over with their quotes gone, so a quoted `"{a,b}"`
 * (which the shell leaves alone) looks the same: callers keep the word as written beside what it
 * expands to, which can only name more files. A `{` after `$` opens a parameter, not a list.
 *
 * Returns [] when the word has nothing to expand; null past MAX_BRACE_WORDS words, past
 * MAX_BRACE_WORD_LENGTH characters with a brace in them, or past the work nested braces that are no
 * list make (the caller treats such a word as known only at run time).
 */
export function braceExpansions(word: string): string[] | null {
  // Each `{` is matched by a scan of the rest: a word past this length is not looked into.
  if (word.length > MAX_BRACE_WORD_LENGTH) return word.includes("{") ? null : [];
  const words = expand(word, 0, { steps: 0 });
  if (words === null) return null;
  return words.length === 1 && words[0] === word ? [] : words;
}

export const MAX_BRACE_WORDS = 64;
export const MAX_BRACE_WORD_LENGTH = 4096;

/** Expansions of one word share a bound on their work: nested braces that are no list double it each. */
const MAX_EXPAND_STEPS = 1_000;

function expand(word: string, from: number, work: { steps: number }): string[] | null {
  if (++work.steps > MAX_EXPAND_STEPS) return null;
  for (let open = word.indexOf("{", from); open !== -1; open = word.indexOf("{", open + 1)) {
    // `${` opens a parameter; a word that starts with `{}` starts with two characters (`{}a,b}`
    // stays as it is), though elsewhere such a `{` opens a list whose first `}` is text (`x{},a}`).
    if (word[open - 1] === "$" || (open === 0 && word[1] === "}")) continue;
    const close = listEnd(word, open);
    if (close === -1) {
      // Braces around what is no list (`{a{b,c}}`) stay, and the lists inside expand; but bash
      // sometimes drops such braces (`{..{,}y}` is `..y` twice): both readings, since a word left
      // out is a file not looked at.
      const end = matchingBrace(word, open);
      if (end === -1 || !word.slice(open + 1, end).includes("{")) continue;
      return joined([expand(word, open + 1, work), expand(word.slice(0, open) + word.slice(open + 1, end) + word.slice(end + 1), open, work)]);
    }
    const body = word.slice(open + 1, close);
    const parts = splitTopLevel(body);
    // (listEnd found a comma of the list's own or a sequence: never undefined here.)
    const alternatives = parts.length > 1 ? parts : sequence(body);
    if (alternatives === null || alternatives === undefined) return null;
    // As bash does: each item and the rest of the word expand on their own, so an item's text
    // and what follows it never make a list together (`x{,{}}y,}y` is `xy,}y x{}y,}y`).
    const rest = expand(word.slice(close + 1), 0, work);
    if (rest === null) return null;
    const prefix = word.slice(0, open);
    return joined(alternatives.map((alternative) => product(prefix, expand(alternative, 0, work), rest)));
  }
  return [word];
}

/** `prefix` + each of `items` + each of `rest`, or null when the items gave up or pass the bound. */
function product(prefix: string, items: readonly string[] | null, rest: readonly string[]): string[] | null {
  if (items === null || items.length * rest.length > MAX_BRACE_WORDS) return null;
  return items.flatMap((item) => rest.map((after) => prefix + item + after));
}

/** The words of several expansions, or null when one gave up or together they pass the bound. */
function joined(expansions: readonly (string[] | null)[]): string[] | null {
  const out: string[] = [];
  for (const words of expansions) {
    if (words === null) return null;
    out.push(...words);
    if (out.length > MAX_BRACE_WORDS) return null;
  }
  return out;
}

/**
 * Where the list or sequence opened at `open` ends, as bash finds it: the first `}` at its depth
 * whose body holds a comma of its own or is a sequence; a `}` before that is text (`{a}b,c}` is
 * `a}b c`), and so is one right after a `{` (`find -exec cmd {} \;`). -1 when there is none.
 */
function listEnd(word: string, open: number): number {
  let depth = 1;
  let comma = false;
  // Whether the body so far could be a sequence (however long its zero padding: bash expands
  // `{0000…01..3}` whatever its width): once it holds anything else, it is looked at no more,
  // so a word is read once, not once for each `}` in it.
  let plain = true;
  for (let i = open + 1; i < word.length; i++) {
    const c = word[i] ?? "";
    if (c === "{") {
      plain = false;
      if (word[i + 1] === "}") i++;
      else depth++;
    } else if (c === "," && depth === 1) comma = true;
    else if (c === "}" && i !== open + 1) {
      if (depth > 1) depth--;
      else if (comma || (plain && sequence(word.slice(open + 1, i)) !== undefined)) return i;
    }
    if (!SEQUENCE_CHARACTER.test(c)) plain = false;
  }
  return -1;
}

/** What a sequence's body is made of (`-05..+10..2`, `a..e`). */
const SEQUENCE_CHARACTER = /^[-+.0-9A-Za-z]$/;

/** The first `}` from `from` that brings the depth of the `{` at `open` back to nothing, or -1. */
function matchingBrace(word: string, open: number, from = open + 1): number {
  let depth = 1;
  for (let i = from; i < word.length; i++) {
    if (word[i] === "{") {
      if (word[i + 1] === "}") i++;
      else depth++;
    } else if (word[i] === "}" && i !== open + 1 && --depth === 0) return i;
  }
  return -1;
}

/** A list's items: split at the commas outside nested braces (a `}` with none open is text). */
function splitTopLevel(body: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < body.length; i++) {
    if (body[i] === "{") {
      if (body[i + 1] === "}") i++;
      else depth++;
    } else if (body[i] === "}" && depth > 0) depth--;
    else if (body[i] === "," && depth === 0) {
      parts.push(body.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(body.slice(start));
  return parts;
}

/** `1..5`, `05..10`, `10..1..3`, `a..e`: the items; undefined when the body is no sequence, null past the bound. */
function sequence(body: string): string[] | null | undefined {
  // A number may carry its sign (`{+1..3}`); only a leading 0 (`05`, `-05`) pads to the wider end.
  const numeric = /^([-+]?\d+)\.\.([-+]?\d+)(?:\.\.([-+]?\d+))?$/.exec(body);
  if (numeric !== null) {
    const [, from = "", to = "", by] = numeric;
    const width = /^-?0\d/.test(from) || /^-?0\d/.test(to) ? Math.max(from.length, to.length) : 0;
    return steps(Number(from), Number(to), by, (n) => (n < 0 ? "-" + String(-n).padStart(width - 1, "0") : String(n).padStart(width, "0")));
  }
  const letters = /^([a-zA-Z])\.\.([a-zA-Z])(?:\.\.([-+]?\d+))?$/.exec(body);
  if (letters !== null) {
    const [, from = "", to = "", by] = letters;
    return steps(from.charCodeAt(0), to.charCodeAt(0), by, (n) => String.fromCharCode(n));
  }
  return undefined;
}

function steps(from: number, to: number, by: string | undefined, show: (n: number) => string): string[] | null {
  const step = Math.abs(Number(by ?? 1)) || 1;
  const count = Math.floor(Math.abs(to - from) / step) + 1;
  if (count > MAX_BRACE_WORDS) return null;
  const direction = to >= from ? 1 : -1;
  return Array.from({ length: count }, (_, i) => show(from + direction * i * step));
}
