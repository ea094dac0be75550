/**
 * Detection and neutralisation of envelope markers in text that must never authenticate anything:
 * tool outputs, web pages, emails, the model's own text. A marker is any spelling a reader could
 * take for `[MSG_AUTH:...]` or `[/MSG_AUTH]`: any case, separators inside the word, full-width and
 * mathematical letters, Cyrillic and Greek look-alikes, look-alike brackets, and invisible
 * characters between the letters. The check runs on a "skeleton" of the text (look-alikes folded
 * to ASCII, invisibles dropped) with a map back to the original offsets.
 */

// Letters that render like the ones in MSG_AUTH, folded to them (upper case).
const LOOKALIKES: Readonly<Record<string, string>> = {
  M: "\u041C\u043C\u039C\u03FA\u1D0D\u216F\u217F\u2133\u13B7",
  S: "\u0405\u0455\uA731\u13DA\u01BD",
  G: "\u050C\u050D\u0262\u0261\u13C0\u13F3",
  A: "\u0410\u0430\u0391\u03B1\u1D00\u0251",
  U: "\u054D\u057D\u03C5\u1D1C\u222A\u028B",
  T: "\u0422\u0442\u03A4\u03C4\u1D1B\u13A2",
  H: "\u041D\u043D\u0397\u04BB\u029C\u13BB\u210B\u210C\u210D",
  "[": "\u27E6\u3010\u3014\u301A\u2045\u2772\u3018\uFE5D\uFE47\u298B\u298D\u298F\u207D\u208D\u2329\u27E8\u3008",
  "]": "\u27E7\u3011\u3015\u301B\u2046\u2773\u3019\uFE5E\uFE48\u298C\u298E\u2990\u207E\u208E\u232A\u27E9\u3009",
  "/": "\u2044\u2215\u2571\u29F8",
  "_": "\u2017\uFE4D\uFE4E\uFE4F\u2010\u2011\u2012\u2013\u2014\u2015\u2212",
};

const FOLD = new Map<number, string>();
for (const [ascii, chars] of Object.entries(LOOKALIKES)) {
  for (const ch of chars) FOLD.set(ch.codePointAt(0) as number, ascii);
}

/** Default-ignorable code points: they render as nothing, so they may hide between the letters. */
function isInvisible(cp: number): boolean {
  return (
    cp === 0x00ad ||
    cp === 0x034f ||
    cp === 0x061c ||
    cp === 0x115f ||
    cp === 0x1160 ||
    cp === 0x17b4 ||
    cp === 0x17b5 ||
    (cp >= 0x180b && cp <= 0x180f) ||
    (cp >= 0x200b && cp <= 0x200f) ||
    (cp >= 0x202a && cp <= 0x202e) ||
    (cp >= 0x2060 && cp <= 0x206f) ||
    cp === 0x3164 ||
    (cp >= 0xfe00 && cp <= 0xfe0f) ||
    cp === 0xfeff ||
    cp === 0xffa0 ||
    (cp >= 0xfff0 && cp <= 0xfff8) ||
    (cp >= 0x1bca0 && cp <= 0x1bca3) ||
    (cp >= 0x1d173 && cp <= 0x1d17a) ||
    (cp >= 0xe0000 && cp <= 0xe0fff)
  );
}

// NFKC per code point is slow; a text in a non-Latin script repeats the same few hundred.
const NFKC_CACHE = new Map<number, string | undefined>();

/** The ASCII character a code point reads as, if it reads as one. */
function fold(cp: number): string | undefined {
  const direct = FOLD.get(cp);
  if (direct !== undefined) return direct;
  if (NFKC_CACHE.has(cp)) return NFKC_CACHE.get(cp);
  const n = String.fromCodePoint(cp).normalize("NFKC");
  // A mathematical Greek capital (U+1D6A8..) normalises to a Greek letter that reads as Latin.
  const single = n.length === 1 ? n.charCodeAt(0) : -1;
  const folded = single < 0 ? undefined : single < 0x80 ? n : FOLD.get(single);
  NFKC_CACHE.set(cp, folded);
  return folded;
}

// Stands in the skeleton for an invisible code unit; the marker pattern skips it anywhere.
const FILLER = "\u0000";

/**
 * Code points that may fold or vanish: the look-alikes above, compatibility letters whose NFKC is
 * ASCII (full-width, mathematical, enclosed, letter-like, super- and subscript, modifier
 * letters, Roman numerals, long s, Kelvin sign), and the invisibles.
 */
const FOLDABLE = new RegExp(
  "[" +
    Object.values(LOOKALIKES).join("") +
    "\\u017F\\u02B0-\\u02FF\\u1D2C-\\u1D6A\\u2070-\\u209F\\u2100-\\u214F\\u2160-\\u2188\\u2460-\\u24FF\\uFF01-\\uFF5E" +
    "\\u{1D400}-\\u{1D7FF}\\u{1F130}-\\u{1F189}" +
    "\\u00AD\\u034F\\u061C\\u115F\\u1160\\u17B4\\u17B5\\u180B-\\u180F\\u200B-\\u200F\\u202A-\\u202E\\u2060-\\u206F\\u3164\\uFE00-\\uFE0F\\uFEFF\\uFFA0\\uFFF0-\\uFFF8" +
    "\\u{1BCA0}-\\u{1BCA3}\\u{1D173}-\\u{1D17A}\\u{E0000}-\\u{E0FFF}" +
    "]",
  "gu",
);

/**
 * The text with look-alikes folded to ASCII and invisibles replaced by FILLER, code unit for code
 * unit (an astral letter becomes its ASCII letter and one FILLER), so offsets in the skeleton are
 * offsets in the text. Text with nothing foldable is its own skeleton, at no cost.
 */
function skeleton(text: string): string {
  FOLDABLE.lastIndex = 0;
  if (!FOLDABLE.test(text)) return text;
  return text.replace(FOLDABLE, (ch) => {
    const cp = ch.codePointAt(0) as number;
    if (isInvisible(cp)) return FILLER.repeat(ch.length);
    const folded = fold(cp);
    if (folded === undefined) return ch;
    return ch.length === 1 ? folded : folded + FILLER;
  });
}

// Between the letters: any number of invisibles, and up to three visible separators.
const GAP = `\\u0000*(?:[\\s_.\\-]\\u0000*){0,3}`;
const WORD = ["M", "S", "G", "A", "U", "T", "H"].join(GAP);
// Optional opener and slash, the word, an optional `:token` (the MAC and its fields), an optional closer.
const MARKER_SOURCE =
  `(?:[\\[(<{][\\s\\u0000]*)?(\\/[\\s\\u0000]*)?${WORD}` +
  `(?:[\\s\\u0000]*:[\\s\\u0000]*[A-Za-z0-9._,:+\\/=\\-\\u0000]{0,512})?(?:[\\s\\u0000]*[\\])>}])?`;
const MARKER = new RegExp(MARKER_SOURCE, "gi");
const MARKER_TEST = new RegExp(WORD, "i");

export const NEUTRALISED_OPEN = "[auth marker removed]";
export const NEUTRALISED_CLOSE = "[/auth marker removed]";

/** True when the text holds anything a reader could take for an envelope marker. */
export function containsEnvelopeMarker(text: string): boolean {
  return MARKER_TEST.test(skeleton(text));
}

/**
 * Replaces every envelope marker, with whatever token it carries, by an inert note. The text
 * between markers is kept: it is data, and the model may need it, but nothing in it can pass
 * for an authenticated instruction any more. Idempotent.
 */
export function neutraliseEnvelopes(text: string): string {
  const sk = skeleton(text);
  if (!MARKER_TEST.test(sk)) return text;
  const out: string[] = [];
  let last = 0;
  for (const m of sk.matchAll(MARKER)) {
    out.push(text.slice(last, m.index), m[1] === undefined ? NEUTRALISED_OPEN : NEUTRALISED_CLOSE);
    last = m.index + m[0].length;
  }
  out.push(text.slice(last));
  return out.join("");
}
