declare module "@ericcornelissen/bash-parser" {
  /** Parses a POSIX/bash script into an AST (documents/ast.md of the package); throws on a syntax error. */
  export default function parse(source: string, options?: { mode?: "posix" | "bash" }): unknown;
}
