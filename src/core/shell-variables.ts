import { visitNodes, type BashWord } from "./bash-ast.js";

/**
 * The values a script's own variables can hold, where the script itself spells them out:
 * `f=notes.md`, `export F=notes.md`, `for f in a.md b.md`. Flow-insensitive: a variable assigned
 * twice may hold either value, and one that is ever given a value known only at run time (`f=$1`,
 * `f=$(ls)`, `read f`, `mapfile f`, `getopts`) holds anything. A variable the script never assigns
 * comes from the environment or the caller and holds anything too. A word is then the words its
 * variables can make (`"$dir/${name}.md"`), or unknown.
 */
export type ShellVariables = ReadonlyMap<string, readonly string[] | null>;

/** Past this many combinations a word counts as unknown (a judged file per combination). */
const MAX_VALUES = 64;
/** Builtins that give the variables they name a value read at run time. */
const READERS: ReadonlySet<string> = new Set(["read", "mapfile", "readarray", "getopts", "select"]);
/** Builtins whose `name=value` arguments assign. */
const DECLARERS: ReadonlySet<string> = new Set(["export", "local", "declare", "typeset", "readonly"]);
const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

interface Expansion {
  readonly type: string;
  readonly parameter?: unknown;
  readonly op?: unknown;
  readonly kind?: unknown;
  readonly loc?: { readonly start?: unknown; readonly end?: unknown };
}

/** The variables of one parsed script (not of a script it runs: `bash -c` starts afresh). */
export function scriptVariables(ast: unknown): ShellVariables {
  const values = new Map<string, string[] | null>();
  const assign = (name: string, value: string | null): void => {
    if (!NAME.test(name)) return;
    const known = values.get(name);
    if (known === null) return;
    if (value === null) values.set(name, null);
    else values.set(name, [...(known ?? []), value]);
  };
  /**
   * `name=value`; `byReference` for `declare -n name=other`, which binds the name to another
   * variable, not to a value. `export f+=more` appends: not one plain value either. (The parser
   * reads a bare `f+=more` as a command, and an array assignment not at all; either is unknown
   * where it is read.)
   */
  const assignment = (word: BashWord, byReference = false): void => {
    const eq = word.text.indexOf("=");
    if (eq <= 0) return;
    const name = word.text.slice(0, eq);
    const appended = name.endsWith("+");
    assign(appended ? name.slice(0, -1) : name, byReference || appended || !literal(word) ? null : unquote(word.text.slice(eq + 1)));
  };
  // A command substitution's assignments happen in a subshell; counting them as the script's
  // only widens what a variable may hold.
  visitNodes(ast, (node) => {
    if (node["type"] === "AssignmentWord") assignment(node as unknown as BashWord);
    if (node["type"] === "For" || node["type"] === "Select") {
      const name = (node["name"] as { text?: unknown } | undefined)?.text;
      const list = node["wordlist"];
      if (typeof name === "string") {
        if (!Array.isArray(list)) assign(name, null); // `for f; do`: the script's arguments
        else for (const word of list as BashWord[]) assign(name, literal(word) ? unquote(word.text) : null);
      }
    }
    if (node["type"] === "Command") {
      const program = (node["name"] as BashWord | undefined)?.text;
      const words = ((node["suffix"] as (BashWord | { type: string })[] | undefined) ?? []).filter((w): w is BashWord => w.type === "Word");
      if (program !== undefined && READERS.has(program)) for (const w of words) if (NAME.test(w.text)) assign(w.text, null);
      if (program !== undefined && DECLARERS.has(program)) {
        const byReference = words.some((w) => /^-[A-Za-z]*n/.test(w.text));
        for (const w of words) if (/^[A-Za-z_][A-Za-z0-9_]*\+?=/.test(w.text)) assignment(w, byReference);
      }
      // `printf -v f`: a name bound another way.
      if (program === "printf") words.forEach((w, i) => w.text === "-v" && words[i + 1] !== undefined && assign(words[i + 1]!.text, null));
    }
  });
  return values;
}

/** Every text the word can be, quotes removed, or null when some part is known only at run time. */
export function wordValues(word: BashWord, variables: ShellVariables): string[] | null {
  const expansions = (word.expansion ?? []) as readonly Expansion[];
  if (expansions.length === 0) return [unquote(word.text)];
  let results: string[] = [word.text];
  // Right to left, so earlier offsets stay where they are.
  const ordered = [...expansions].sort((a, b) => Number(b.loc?.start) - Number(a.loc?.start));
  for (const expansion of ordered) {
    const start = expansion.loc?.start;
    const end = expansion.loc?.end;
    if (expansion.type !== "ParameterExpansion" || expansion.op !== undefined || expansion.kind !== undefined) return null;
    if (typeof expansion.parameter !== "string" || typeof start !== "number" || typeof end !== "number") return null;
    const values = variables.get(expansion.parameter);
    if (values === undefined || values === null || values.length === 0) return null;
    const next: string[] = [];
    for (const text of results) {
      for (const value of values) {
        next.push(text.slice(0, start) + value + text.slice(end + 1));
        if (next.length > MAX_VALUES) return null;
      }
    }
    results = next;
  }
  return [...new Set(results.map(unquote))];
}

function literal(word: BashWord): boolean {
  return (word.expansion ?? []).length === 0;
}

/** The word as the program gets it, for a plain path: its quote characters go. */
function unquote(text: string): string {
  return text.replace(/["']/g, "");
}
