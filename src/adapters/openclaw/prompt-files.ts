import { isAbsolute, join } from "node:path";
import { DEFAULT_MEMORY_FILE_PATTERNS } from "../../core/memory-files.js";
import { regularFileSize } from "../../state/file-kind.js";

/** Past this many files named by one prompt, the rest are not looked at and the turn counts as untrusted. */
export const MAX_PROMPT_FILES = 512;

export interface PromptFiles {
  /** Existing files, absolute, each once, in the order met. */
  readonly files: readonly string[];
  /** True when the prompt named more than MAX_PROMPT_FILES files and the rest were not looked at. */
  readonly overflow: boolean;
}

/**
 * The files OpenClaw put in an agent's system prompt with no tool call: the workspace files it
 * loads whole as "Project Context" (OpenClaw 2026.9.6 heads each with `## <absolute path>`), and
 * the skills it lists (each skill's `<location>`: its description is in the prompt, and the model
 * is told to read the file and obey it). The workspace's own bootstrap files (`AGENTS.md`,
 * `MEMORY.md`, ...) are always among them, so a runtime that does not pass the prompt, or words it
 * differently, still has them looked at.
 *
 * A file's text in the prompt can add headings that name other files; that only adds files to
 * look at, and a heading that names no file is passed over, so it cannot hide one OpenClaw named.
 */
export function promptFiles(systemPrompt: string | undefined, workspaceDir: string, home: string): PromptFiles {
  // A pattern with a glob (`memory/**/*.md`) names no file, and is passed over with the rest.
  const named: string[] = DEFAULT_MEMORY_FILE_PATTERNS.map((name) => join(workspaceDir, name));
  if (systemPrompt !== undefined) {
    const context = systemPrompt.indexOf("\n# Project Context\n");
    if (context >= 0) {
      for (const match of systemPrompt.slice(context).matchAll(/^## (.+)$/gm)) named.push(match[1] ?? "");
    }
    for (const match of systemPrompt.matchAll(/<location>([^<]*)<\/location>/g)) named.push(decodeXml(match[1] ?? ""));
  }
  const files: string[] = [];
  const seen = new Set<string>();
  for (const raw of named) {
    const path = absolute(raw.trim().replaceAll("\\", "/"), home);
    if (path === null || seen.has(path) || regularFileSize(path) === null) continue;
    if (files.length === MAX_PROMPT_FILES) return { files, overflow: true };
    seen.add(path);
    files.push(path);
  }
  return { files, overflow: false };
}

/** A path as OpenClaw writes it (absolute, or under `~/`); null for anything else. */
function absolute(path: string, home: string): string | null {
  if (path.startsWith("~/")) return join(home, path.slice(2));
  return isAbsolute(path) ? path : null;
}

/** OpenClaw escapes a skill's location as XML text. */
function decodeXml(text: string): string {
  return text.replace(/&(lt|gt|quot|apos|amp);/g, (_, name: string) => ({ lt: "<", gt: ">", quot: '"', apos: "'", amp: "&" })[name] ?? "");
}
