/** A name an object repeats: as spelled the second time, and the spelling it repeats. */
export interface RepeatedName {
  readonly name: string;
  readonly earlier: string;
}

/**
 * The first member name an object of a JSON text repeats, or null. JSON leaves repeated names to
 * the parser: ours (`JSON.parse`) keeps the last value, RapidJSON's and simdjson's lookups find the
 * first. And some readers take different names for one, each keeping the last: Go's
 * `encoding/json` and .NET's with its web defaults ignore case (Go also folds `ſ` to `s` and the
 * Kelvin sign to `k`), and Swift's strings are equal when canonically equivalent (`é` composed or
 * not). The proxy forwards the bytes it read, not its parse of them, so such a message could mean
 * one call to the proxy and another to the server (`"path"` twice, or `"path"` and `"PATH"`: the
 * proxy judges one, the server writes the other). Such a message is refused instead.
 *
 * `ignoringCase` compares names normalized (NFKC, wider than canonical: a full-width `ｐ` is `p`)
 * and with case folded (wider than Go: `ß` is `ss`): wider is the safe side.
 *
 * For text `JSON.parse` has accepted: one pass, no recursion (depth is the parser's limit, not
 * ours), strings skipped by search, names compared as decoded (`"a"` and `"\u0061"` are one name).
 * Text that is not JSON gets an answer too, never an exception or an endless loop.
 */
export function repeatedMemberName(text: string, ignoringCase = false): RepeatedName | null {
  // One entry per open container: the names an object has so far (compared form to spelling), or null for an array.
  const open: (Map<string, string> | null)[] = [];
  let nameNext = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      const end = closingQuote(text, i);
      if (end < 0) return null;
      if (nameNext) {
        const names = open[open.length - 1];
        const name = decodedName(text.slice(i, end + 1));
        const compared = ignoringCase ? name.normalize("NFKC").toUpperCase().toLowerCase() : name;
        const earlier = names?.get(compared);
        if (earlier !== undefined) return { name, earlier };
        names?.set(compared, name);
        nameNext = false;
      }
      i = end;
    } else if (c === OPEN_BRACE) {
      open.push(new Map());
      nameNext = true;
    } else if (c === OPEN_BRACKET) {
      open.push(null);
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      // No string follows a closing one directly: a comma comes first and says what it is.
      open.pop();
    } else if (c === COMMA) {
      nameNext = open[open.length - 1] instanceof Map;
    }
  }
  return null;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;

/** The index of the quote that ends the string opened at `start`: the next one not escaped (-1: none, not JSON). */
function closingQuote(text: string, start: number): number {
  let at = text.indexOf('"', start + 1);
  for (;;) {
    if (at < 0) return -1;
    let slashes = 0;
    while (text.charCodeAt(at - 1 - slashes) === BACKSLASH) slashes++;
    if (slashes % 2 === 0) return at;
    at = text.indexOf('"', at + 1);
  }
}

/** A quoted name as the parser reads it; one whose escapes are not JSON's (not JSON at all) as spelled. */
function decodedName(quoted: string): string {
  if (!quoted.includes("\\")) return quoted.slice(1, -1);
  try {
    return JSON.parse(quoted) as string;
  } catch {
    return quoted.slice(1, -1);
  }
}
