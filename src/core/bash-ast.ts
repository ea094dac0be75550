import parseBash from "@ericcornelissen/bash-parser";

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

/** Parses a shell script; throws on anything the parser cannot read. */
export function parseShell(script: string): unknown {
  return parseBash(script);
}
