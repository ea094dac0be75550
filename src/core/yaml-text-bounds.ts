/**
 * Whether a text is shallow enough to hand to a YAML parser. YAML parsers recurse, and the `yaml`
 * package compiles a pattern per indentation level, so a hostile nesting ("- - - - …", "[[[[…")
 * can exhaust the stack or the heap; running out of heap in V8's regexp compiler ends the process,
 * which no `catch` recovers from. Brackets are counted even inside quotes, and indentation
 * (spaces, tabs and the `-`, `?`, `:` that open a nested node) at the start of each line: a text
 * that fails is refused before any parser sees it.
 */
export const MAX_YAML_NESTING = 64;

export function yamlNestingExceeds(text: string, maxNesting: number = MAX_YAML_NESTING): boolean {
  let depth = 0;
  let indent = 0;
  let atLineStart = true;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x5b || c === 0x7b) {
      if (++depth > maxNesting) return true;
    } else if (c === 0x5d || c === 0x7d) depth = Math.max(0, depth - 1);
    if (c === 0x0a) {
      atLineStart = true;
      indent = 0;
    } else if (atLineStart && (c === 0x20 || c === 0x2d || c === 0x09 || c === 0x3f || c === 0x3a)) {
      if (++indent > 2 * maxNesting) return true;
    } else atLineStart = false;
  }
  return false;
}
