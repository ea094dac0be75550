import { readdirSync, readFileSync } from "node:fs";
import { dirname, isAbsolute, join, relative, resolve } from "node:path";
import { expandHome } from "../../core/host-paths.js";
import { isDirectory, regularFileSize } from "../../state/file-kind.js";
import { atPaths } from "./at-paths.js";

/**
 * The files Claude Code puts before the model as instructions with no tool call (its memory:
 * `CLAUDE.md` and its relatives, rule files, and every file they `@import`; the skills, commands
 * and sub-agents whose descriptions it lists, whose text a `Skill` or `Agent` call brings, and
 * output styles), found on disk the way Claude Code 2.1.332 looks for them, generously: a file it
 * might load and this finds costs a judgement of a project file; one it loads and this misses is
 * content in the context unjudged.
 */

/** What a directory may hold that Claude Code reads as instructions (AGENTS.md where there is no CLAUDE.md, and beside it by a setting). */
const DIRECTORY_FILES = ["CLAUDE.md", "CLAUDE.local.md", "AGENTS.md", join(".claude", "CLAUDE.md"), join(".claude", "AGENTS.md")] as const;
const RULES_DIR = join(".claude", "rules");
/** Each skill is a directory holding a `SKILL.md`; Claude Code finds them in the directories a call's file lies in, too. */
const SKILLS_DIR = join(".claude", "skills");
/** Markdown trees whose files Claude Code lists or puts in the prompt: commands, sub-agent definitions, output styles. */
const LISTED_DIRS = [join(".claude", "commands"), join(".claude", "agents"), join(".claude", "output-styles")] as const;
/** Claude Code follows imports five deep; this follows further, in case a version goes deeper. */
const MAX_IMPORT_DEPTH = 10;
/** Past this many files (or a file too large to scan for imports) the set is not complete. */
const MAX_FILES = 256;
const MAX_SCANNED_BYTES = 1024 * 1024;
/** A rules, commands, agents or output-styles tree (a linked loop included) is walked this far at most. */
const MAX_TREE_DIRECTORIES = 256;

export interface InstructionFiles {
  /** Absolute paths of existing files, each once. */
  readonly files: readonly string[];
  /** Why the set may lack some, when it may (too many files, one too large to read whole). */
  readonly incomplete: string | null;
}

/**
 * What a session loads when it starts (and again after `/clear` or a compaction): the instruction
 * files of `cwd` and of every directory above it, the user's own (`~/.claude/`), those of the
 * directories it works in beside `cwd` (`--add-dir`), each directory's rule files, skills and
 * commands, the notes of its auto memory (`memory`, auto-memory.ts), and their imports.
 */
export function startInstructionFiles(cwd: string, home: string, additional: readonly string[] = [], memory: readonly string[] = []): InstructionFiles {
  const found = new Collector(home);
  for (let dir = resolve(cwd); ; dir = dirname(dir)) {
    found.directory(dir);
    if (dirname(dir) === dir) break;
  }
  found.directory(resolve(home));
  for (const dir of additional) found.directory(resolve(dir));
  for (const dir of memory) found.markdownTree(resolve(dir));
  return found.result();
}

/** What a directory added during the session (`/add-dir`) brings: its instruction files, skills and commands. */
export function addedDirectoryInstructionFiles(dir: string, home: string): InstructionFiles {
  const found = new Collector(home);
  found.directory(resolve(dir));
  return found.result();
}

/**
 * What Claude Code attaches to a tool call on `path` (relative to `cwd`): the instruction files
 * of the directories between the file and the session's start directory (those of `cwd` and above
 * are loaded at start), and their imports. For a file outside `cwd`, those up to the nearest
 * directory that holds `cwd` too.
 */
export function nestedInstructionFiles(path: string, cwd: string, home: string): InstructionFiles {
  const found = new Collector(home);
  const start = resolve(cwd);
  const file = resolve(start, path);
  // The root is above every start directory, so the walk ends.
  for (let dir = dirname(file); !isAncestorOrSelf(dir, start); dir = dirname(dir)) found.directory(dir);
  return found.result();
}

function isAncestorOrSelf(dir: string, of: string): boolean {
  const rel = relative(dir, of);
  return !rel.startsWith("..") && !isAbsolute(rel);
}

class Collector {
  private readonly files = new Set<string>();
  private readonly directories = new Set<string>();
  private incomplete: string | null = null;

  constructor(private readonly home: string) {}

  directory(dir: string): void {
    // The home directory is often one of the start directory's ancestors, and an added directory may be too.
    if (this.directories.has(dir)) return;
    this.directories.add(dir);
    for (const name of DIRECTORY_FILES) this.add(join(dir, name), 0);
    // Most directories have no .claude/: one look instead of five.
    if (!isDirectory(join(dir, ".claude"))) return;
    this.markdownTree(join(dir, RULES_DIR));
    for (const listed of LISTED_DIRS) this.markdownTree(join(dir, listed));
    this.skills(join(dir, SKILLS_DIR));
  }

  private skills(dir: string): void {
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      return;
    }
    for (const name of names) this.add(join(dir, name, "SKILL.md"), 0);
  }

  /**
   * Every `.md` beneath a directory, subdirectories (linked ones too) included: a rule's `paths` only
   * say when it loads, and a command or an agent in a subdirectory is namespaced by it.
   */
  markdownTree(dir: string): void {
    const stack = [dir];
    for (let visited = 0; stack.length > 0; visited++) {
      if (visited === MAX_TREE_DIRECTORIES) {
        this.incomplete ??= `more than ${MAX_TREE_DIRECTORIES} directories under ${dir} to check`;
        return;
      }
      const next = stack.pop() as string;
      let names: string[];
      try {
        names = readdirSync(next);
      } catch {
        continue;
      }
      for (const name of names) {
        const path = join(next, name);
        if (isDirectory(path)) stack.push(path);
        else if (name.endsWith(".md")) this.add(path, 0);
      }
    }
  }

  add(path: string, depth: number): void {
    if (this.files.has(path) || this.incomplete !== null) return;
    const size = regularFileSize(path);
    if (size === null) return;
    if (this.files.size >= MAX_FILES) {
      this.incomplete = `more than ${MAX_FILES} instruction files and imports to check`;
      return;
    }
    this.files.add(path);
    if (depth >= MAX_IMPORT_DEPTH) return;
    if (size > MAX_SCANNED_BYTES) {
      this.incomplete = `${path} is too large to read for the files it imports`;
      return;
    }
    const text = readText(path);
    if (text === null) return;
    // An import is relative to the file that makes it, or in the home directory (`@~/notes.md`).
    for (const target of atPaths(text)) this.add(resolve(dirname(path), expandHome(target, this.home)), depth + 1);
  }

  result(): InstructionFiles {
    return { files: [...this.files], incomplete: this.incomplete };
  }
}

function readText(path: string): string | null {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return null;
  }
}
