/**
 * What a local program runs or reads beyond the files its words name: the commands it is told to
 * run (`find -exec`, `fd -x`, `tar --to-command`, `rg --pre`, `git rebase --exec`), the files and
 * commands its own script names (`sed 'r file'`, `sed 'e cmd'`, awk's `system()` and `getline`, jq's
 * `import`, yq's `load()`).
 * Pure: a program's name and its words in, what they make it do out.
 */
import { optionValues } from "./option-values.js";

export interface EmbeddedWork {
  /** Programs it runs, each with its words (`find … -exec cat {} ;` runs `cat {}`). */
  readonly commands: readonly (readonly string[])[];
  /** Shell command lines it hands to a shell (`tar --to-command='…'`). */
  readonly scripts: readonly string[];
  /** Files its script reads by name (`sed '1r notes.md'`). */
  readonly files: readonly string[];
  /** Why what it runs or reads is not known from its words, when it is not. */
  readonly unknown: string | null;
}

const NOTHING: EmbeddedWork = Object.freeze({ commands: [], scripts: [], files: [], unknown: null });

const FIND_EXEC: ReadonlySet<string> = new Set(["-exec", "-execdir", "-ok", "-okdir"]);
export const FD_EXEC = /^(-x|-X|--exec|--exec-batch)$/;

export function embeddedWork(program: string, args: readonly string[]): EmbeddedWork {
  switch (program) {
    case "find":
      return { ...NOTHING, commands: runsUntil(args, (a) => FIND_EXEC.has(a), (a) => a === ";" || a === "+") };
    case "fd":
    case "fdfind":
      return { ...NOTHING, commands: runsUntil(args, (a) => FD_EXEC.test(a), (a) => a === ";") };
    // Options whose value is a command line a shell runs.
    case "tar":
      return { ...NOTHING, scripts: [...optionValues(args, "IF", ["--to-command", "--use-compress-program", "--info-script", "--new-volume-script"]), ...checkpointActions(args)] };
    case "sort":
      return { ...NOTHING, scripts: optionValues(args, "", ["--compress-program"]) };
    case "rg":
      return { ...NOTHING, scripts: optionValues(args, "", ["--pre"]) };
    case "git":
      return args[0] === "rebase" ? { ...NOTHING, scripts: optionValues(args, "x", ["--exec"]) } : NOTHING;
    case "awk":
    case "gawk":
    case "mawk":
    case "nawk":
      return awkWork(args);
    case "sed":
      return sedWork(args);
    case "jq":
    case "yq":
      return jqWork(args);
    default:
      return NOTHING;
  }
}

/** Each run of words after a word `starts` accepts, up to one `ends` accepts (or the end). */
function runsUntil(args: readonly string[], starts: (a: string) => boolean, ends: (a: string) => boolean): string[][] {
  const out: string[][] = [];
  for (let i = 0; i < args.length; i++) {
    if (!starts(args[i] as string)) continue;
    let end = i + 1;
    while (end < args.length && !ends(args[end] as string)) end++;
    if (end > i + 1) out.push(args.slice(i + 1, end));
    i = end;
  }
  return out;
}

/** tar's `--checkpoint-action=exec=CMD`. */
function checkpointActions(args: readonly string[]): string[] {
  return optionValues(args, "", ["--checkpoint-action"]).flatMap((v) => (v.startsWith("exec=") ? [v.slice(5)] : []));
}

/** awk's options that take the next word (or the rest of the word) as their value. */
const AWK_VALUE_SHORT = "FvfeilWE";
const AWK_VALUE_LONG: ReadonlySet<string> = new Set(["--field-separator", "--assign", "--file", "--source", "--include", "--load"]);

/**
 * awk: its program's text is the first word that is not an option, or each `-e`/`--source`. A
 * program from a file (`-f`, `--include`, `--load`) is not read here; a program that can run a
 * command or read a file (`system()`, `getline`, a pipe, `@load`, `@include`) runs or reads
 * what its words do not say.
 */
function awkWork(args: readonly string[]): EmbeddedWork {
  const programs: string[] = [];
  let fromFile = false;
  let i = 0;
  for (; i < args.length; i++) {
    const a = args[i] as string;
    if (a === "--") {
      i++;
      break;
    }
    if (!a.startsWith("-")) break;
    const long = a.startsWith("--") ? a.split("=")[0] ?? a : null;
    if (long !== null) {
      const value = a.includes("=") ? a.slice(a.indexOf("=") + 1) : AWK_VALUE_LONG.has(long) ? args[++i] : undefined;
      if (long === "--source" && value !== undefined) programs.push(value);
      if (long === "--file" || long === "--include" || long === "--load") fromFile = true;
      continue;
    }
    const letter = a[1] as string;
    if (!AWK_VALUE_SHORT.includes(letter)) continue;
    const value = a.length > 2 ? a.slice(2) : args[++i];
    if (letter === "e" && value !== undefined) programs.push(value);
    if ("filE".includes(letter)) fromFile = true;
  }
  if (fromFile) return { ...NOTHING, unknown: "awk runs a program from a file" };
  // Every word after the options is read as a program: an option this does not know to take a
  // value would otherwise hide the program behind it (a file's name rarely reads as a pipe or a
  // `getline`).
  programs.push(...args.slice(i));
  for (const text of programs) if (awkRunsOrReads(text)) return { ...NOTHING, unknown: "the awk program runs a command or reads a file it names" };
  return NOTHING;
}

/**
 * Whether an awk program can run a command or read a file: `system(`, `getline`, a command pipe
 * (`|`, `|&`; not `||`, nor a `|` inside a string or a regular expression), `@load`, `@include`.
 */
export function awkRunsOrReads(text: string): boolean {
  let code = "";
  let previous = "";
  for (let i = 0; i < text.length; i++) {
    const c = text[i] as string;
    if (c === '"') {
      i = skipQuoted(text, i, '"');
      code += '""';
      previous = '"';
      continue;
    }
    // A `/` where an operand is expected opens a regular expression (`$0 ~ /a|b/`, `/x|y/ { … }`).
    // (At the start, `previous` is "", which every string includes.)
    if (c === "/" && "(,~!{};&|=:?\n".includes(previous)) {
      i = skipRegex(text, i);
      code += "//";
      previous = "/";
      continue;
    }
    code += c;
    if (!/\s/.test(c) || c === "\n") previous = c;
  }
  return /\bsystem\s*\(|\bgetline\b|@load\b|@include\b/.test(code) || code.replaceAll("||", "").includes("|");
}

/** The index of the closing `quote` of the literal opened at `open` (backslash escapes), or the end. */
function skipQuoted(text: string, open: number, quote: string): number {
  for (let i = open + 1; i < text.length; i++) {
    if (text[i] === "\\") i++;
    else if (text[i] === quote) return i;
  }
  return text.length;
}

/** The index of the `/` closing the regular expression opened at `open` (escapes and bracket expressions inside), or the end. */
function skipRegex(text: string, open: number): number {
  let bracket = false;
  for (let i = open + 1; i < text.length; i++) {
    const c = text[i];
    if (c === "\\") i++;
    else if (c === "[") bracket = true;
    else if (c === "]") bracket = false;
    else if (c === "/" && !bracket) return i;
    else if (c === "\n") return i;
  }
  return text.length;
}

/**
 * jq, and yq (one yq takes jq's programs, the other has its own language): a program from a file
 * (`-f`, `--from-file`), one that imports a module or a data file (`import "vendor/data" as $d;`,
 * `include "m";`: jq finds them relative to the directory it runs in), or one that loads a file
 * (yq's `load("f")`, `load_str(.path)`, and `eval(…)`, which can build such a call) reads what its
 * words do not say. Every word is looked at, as for awk: a module path is a string literal, so a
 * word that imports holds a `"`, and a call a `(`; a file's name holds neither.
 */
function jqWork(args: readonly string[]): EmbeddedWork {
  if (args.some((a) => a === "--from-file" || /^-[A-Za-z]*f[A-Za-z]*$/.test(a))) return { ...NOTHING, unknown: "jq runs a program from a file" };
  if (args.some(jqProgramReads)) return { ...NOTHING, unknown: "the jq program reads a file it names" };
  return NOTHING;
}

export function jqProgramReads(text: string): boolean {
  return (/\b(?:import|include)\b/.test(text) && text.includes('"')) || (/\b(?:load\w*|eval)\b/.test(text) && text.includes("("));
}

/** sed's options that take the next word (or the rest of the word) as their value. */
const SED_VALUE_SHORT = "efl";
const SED_VALUE_LONG: ReadonlySet<string> = new Set(["--expression", "--file", "--line-length"]);

/**
 * sed: its script is each `-e`/`--expression`, else the first word that is not an option. GNU
 * sed's `r`/`R` read a file the script names, and `e` and the `s///e` flag run a command;
 * `--sandbox` refuses all three. A script from a file (`-f`), or one this does not parse, may do
 * any of them.
 */
function sedWork(args: readonly string[]): EmbeddedWork {
  const scripts: string[] = [];
  let fromFile = false;
  let sandbox = false;
  const operands: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i] as string;
    if (a === "--") {
      operands.push(...args.slice(i + 1));
      break;
    }
    if (!a.startsWith("-")) {
      operands.push(a);
      continue;
    }
    if (a.startsWith("--")) {
      const long = a.split("=")[0] ?? a;
      const value = a.includes("=") ? a.slice(a.indexOf("=") + 1) : SED_VALUE_LONG.has(long) ? args[++i] : undefined;
      if (long === "--expression" && value !== undefined) scripts.push(value);
      if (long === "--file") fromFile = true;
      if (long === "--sandbox") sandbox = true;
      continue;
    }
    for (let j = 1; j < a.length; j++) {
      const letter = a[j] as string;
      if (!SED_VALUE_SHORT.includes(letter)) continue;
      const value = j + 1 < a.length ? a.slice(j + 1) : args[++i];
      if (letter === "e" && value !== undefined) scripts.push(value);
      if (letter === "f") fromFile = true;
      break;
    }
  }
  if (sandbox) return NOTHING;
  if (fromFile) return { ...NOTHING, unknown: "sed runs a script from a file" };
  // The first operand is the script (an empty word is BSD sed's `-i ''` suffix, not a script).
  const first = operands.find((o) => o !== "");
  if (scripts.length === 0 && first !== undefined) scripts.push(first);
  const files: string[] = [];
  for (const script of scripts) {
    const found = sedScriptWork(script);
    if (found === null) return { ...NOTHING, unknown: "the sed script could not be read for the commands it runs" };
    if (found.runs) return { ...NOTHING, unknown: "the sed script runs a command" };
    files.push(...found.reads);
  }
  return { ...NOTHING, files };
}

/** GNU sed commands that take no argument. */
const SED_PLAIN = new Set([..."=dDgGhHlLnNpPxzFqQ"]);

/**
 * The files a sed script reads (`r`, `R`) and whether it runs a command (`e`, the `s` flag `e`);
 * null when it cannot be read as a script.
 */
export function sedScriptWork(script: string): { readonly reads: readonly string[]; readonly runs: boolean } | null {
  const reads: string[] = [];
  let i = 0;
  const restOfLine = (): string => {
    const end = script.indexOf("\n", i);
    const line = script.slice(i, end === -1 ? script.length : end);
    i = end === -1 ? script.length : end;
    return line;
  };
  while (i < script.length) {
    const c = script[i] as string;
    if (/[\s;{}!]/.test(c)) {
      i++;
      continue;
    }
    if (c === "#") {
      restOfLine();
      continue;
    }
    const afterAddresses = skipAddresses(script, i);
    if (afterAddresses === null) return null;
    i = afterAddresses;
    while (i < script.length && /[\s!]/.test(script[i] as string)) i++;
    const command = script[i];
    if (command === undefined) return null;
    i++;
    if (command === "{") continue;
    if (command === "e") return { reads, runs: true };
    if (command === "r" || command === "R") {
      const name = restOfLine().trim();
      if (name === "") return null;
      // GNU sed reads the name to the end of the line; `;` may be part of it.
      reads.push(name, ...(name.includes(";") ? [name.slice(0, name.indexOf(";")).trim()] : []));
      continue;
    }
    if ("aic".includes(command)) {
      // Text to the end of the line, and on while a line ends with a backslash (`a\` then the text).
      while (restOfLine().endsWith("\\") && i < script.length) i++;
      continue;
    }
    if (command === "w" || command === "W") {
      restOfLine(); // the file written, to the end of the line
      continue;
    }
    if (":btTv".includes(command)) {
      // A label (or `v`'s version): one word, ended by a space or `;` (`tp R x` is `t p`, then `R x`).
      while (i < script.length && /[ \t]/.test(script[i] as string)) i++;
      while (i < script.length && !/[\s;]/.test(script[i] as string)) i++;
      continue;
    }
    if (command === "s" || command === "y") {
      const delimiter = script[i];
      if (delimiter === undefined || delimiter === "\n" || delimiter === "\\") return null;
      for (let part = 0; part < 2; part++) {
        i = skipQuoted(script, i, delimiter);
        if (i >= script.length) return null;
      }
      i++;
      if (command === "y") continue;
      const flags = /^[gpiImMe0-9]*/.exec(script.slice(i))?.[0] ?? "";
      i += flags.length;
      if (flags.includes("e")) return { reads, runs: true };
      // A `w file` flag is read next as the `w` command is.
      continue;
    }
    if (SED_PLAIN.has(command)) {
      // `q`, `Q`, `l` and `L` may take a number.
      while (i < script.length && /[0-9]/.test(script[i] as string)) i++;
      continue;
    }
    return null;
  }
  return { reads, runs: false };
}

/** The index after a command's addresses (`3`, `$`, `/re/I`, `\%re%`, `1~2`, `a,b`, `a,+3`, `a,~4`), or null when one is malformed. */
function skipAddresses(script: string, start: number): number | null {
  let i = skipAddress(script, start, false);
  if (i === null) return null;
  let j = i;
  while (j < script.length && script[j] === " ") j++;
  if (script[j] !== ",") return i;
  j++;
  while (j < script.length && script[j] === " ") j++;
  i = skipAddress(script, j, true);
  return i === j ? null : i;
}

function skipAddress(script: string, start: number, second: boolean): number | null {
  let i = start;
  const c = script[i];
  if (c === "$") return i + 1;
  if (c === "/" || c === "\\") {
    const delimiter = c === "/" ? "/" : script[i + 1];
    if (delimiter === undefined || delimiter === "\n") return null;
    i = skipQuoted(script, c === "/" ? i : i + 1, delimiter);
    if (i >= script.length) return null;
    i++;
    while (i < script.length && "IM".includes(script[i] as string)) i++;
    return i;
  }
  if (second && (c === "+" || c === "~")) i++;
  const digits = /^[0-9]*/.exec(script.slice(i))?.[0] ?? "";
  i += digits.length;
  if (digits !== "" && script[i] === "~") {
    i++;
    i += (/^[0-9]*/.exec(script.slice(i))?.[0] ?? "").length;
  }
  return i;
}
