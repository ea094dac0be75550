import { ConfigError } from "../core/config-error.js";

/** Prints `provenant <command>: <reason>` and exits 2 for bad input, 1 for anything else. */
export function exitWith(command: string, error: unknown): never {
  const message = error instanceof Error ? error.message : String(error);
  process.stderr.write(`provenant ${command}: ${message}\n`);
  const badInput = error instanceof ConfigError || (error instanceof Error && ["TraceError", "SyntaxError", "CorpusError"].includes(error.name));
  process.exit(badInput ? 2 : 1);
}
