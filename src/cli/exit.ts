import { ConfigError } from "../core/config-error.js";
import { displayBlock } from "../core/safe-display.js";
import { describeFsError } from "../state/state-file-read.js";

const BAD_INPUT = new Set(["SettingsError", "TraceError", "SyntaxError", "CorpusError", "InputFileError", "InputLimitError", "YAMLParseError"]);

/** An error as a line for the owner: a file system error names its path and the reason in words. */
export function describeCliError(error: unknown): string {
  if (error instanceof Error && "code" in error && typeof error.code === "string" && "path" in error && typeof error.path === "string") {
    return `cannot use ${JSON.stringify(error.path)}: ${describeFsError(error)}`;
  }
  if (error instanceof RangeError && /call stack/i.test(error.message)) return "the input is nested too deeply to process";
  return error instanceof Error ? error.message : String(error);
}

/** Prints `provenant <command>: <reason>` (display-safe) and exits 2 for bad input, 1 for anything else. */
export function exitWith(command: string, error: unknown): never {
  process.stderr.write(`provenant ${command}: ${displayBlock(describeCliError(error))}\n`);
  const badInput = error instanceof ConfigError || (error instanceof Error && BAD_INPUT.has(error.name));
  process.exit(badInput ? 2 : 1);
}
