import { createRequire } from "node:module";

type ParseBash = (source: string, options?: { mode?: "posix" | "bash" }) => unknown;

/**
 * The parser, loaded now and whole: built, it is dist/core/bash-parser.cjs (one file,
 * scripts/bundle-bash-parser.mjs), because the package loads parts of itself at every parse and a
 * host may have removed a plugin's files by then (OpenClaw does, after a config hot reload); from
 * the sources (tests) it is the package.
 */
const parseBash = createRequire(import.meta.url)(import.meta.url.endsWith(".ts") ? "@ericcornelissen/bash-parser" : "./bash-parser.cjs") as ParseBash;

/**
 * The few shapes of @ericcornelissen/bash-parser's AST this project reads (its documents/ast.md).
 * Everything else in a node is walked generically, so a node type this file does not name is still
 * searched for the commands inside it.
 */
export interface BashWord {
  readonly type: "Word" | "AssignmentWord" | "Name";
  readonly text: string;
  readonly expansion?: readonly BashExpansion[];
}

export interface BashExpansion {
  readonly type: "CommandExpansion" | "ParameterExpansion" | "ArithmeticExpansion";
  readonly commandAST?: unknown;
  readonly expression?: string;
}

export interface BashRedirect {
  readonly type: "Redirect";
  readonly op: { readonly text: string };
  readonly file: BashWord;
}

export interface BashCommand {
  readonly type: "Command";
  readonly name?: BashWord;
  readonly prefix?: readonly (BashWord | BashRedirect)[];
  readonly suffix?: readonly (BashWord | BashRedirect)[];
}

/**
 * Calls `visit` on every node of a parsed script, each before the nodes inside it (so a pipeline
 * is seen before its commands); positions and texts are not nodes.
 */
export function visitNodes(node: unknown, visit: (node: Record<string, unknown>) => void): void {
  if (Array.isArray(node)) {
    for (const item of node) visitNodes(item, visit);
    return;
  }
  if (node === null || typeof node !== "object") return;
  const record = node as Record<string, unknown>;
  visit(record);
  for (const [key, value] of Object.entries(record)) if (key !== "type" && key !== "loc" && key !== "text") visitNodes(value, visit);
}

/** The last scripts parsed: one `exec` is read for its output's trust, its `cd`s and its writes. */
const parsed = new Map<string, { readonly ast: unknown } | { readonly error: unknown }>();
const MAX_PARSED = 32;

/**
 * Parses a shell script; throws on anything the parser cannot read. The tree is shared between
 * callers (kept for the last MAX_PARSED scripts) and must not be changed.
 */
export function parseShell(script: string): unknown {
  let entry = parsed.get(script);
  if (entry === undefined) {
    try {
      entry = { ast: Object.freeze(parseBash(script)) };
    } catch (error) {
      entry = { error };
    }
    if (parsed.size >= MAX_PARSED) parsed.delete(parsed.keys().next().value as string);
    parsed.set(script, entry);
  }
  if ("error" in entry) throw entry.error;
  return entry.ast;
}
