const TRAILING_PUNCTUATION = /[.,;:!?)\]}'"`>]+$/;

/**
 * Every path an `@` may name in text Claude Code expands (a prompt's @-mentions, an instruction
 * file's imports), generously, since a spelling that names nothing costs a lookup and one missed is
 * content in the context unjudged: `@path`, `@"a path"` and `@a\ path` after the start, a space, an
 * opening bracket or a quote, each with and without a line anchor (`#L10-20`) and trailing
 * punctuation. Matches overlap: `@(@a` names `(@a` and `a`.
 */
export function atPaths(text: string): string[] {
  if (!text.includes("@")) return [];
  const raw = new Set<string>();
  for (const m of text.matchAll(/(?<=^|[\s(\[{'"`])@"([^"]+)"/g)) if (m[1] !== undefined) raw.add(m[1]);
  for (const m of text.matchAll(/(?<=^|[\s(\[{'"`])@(?=((?:[^\s\\]|\\ )+))/g)) if (m[1] !== undefined) raw.add(m[1].replaceAll("\\ ", " "));
  const out = new Set<string>();
  for (const token of raw) {
    const unquoted = token.replace(/^"/, "");
    const spellings = [unquoted, unquoted.replace(TRAILING_PUNCTUATION, "")];
    for (const spelling of [...spellings]) {
      const hash = spelling.indexOf("#");
      if (hash > 0) spellings.push(spelling.slice(0, hash), spelling.slice(0, hash).replace(TRAILING_PUNCTUATION, ""));
    }
    for (const spelling of spellings) if (spelling !== "") out.add(spelling);
  }
  return [...out];
}
