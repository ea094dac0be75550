#!/usr/bin/env node
import { readFileSync } from "node:fs";
import { Command } from "commander";
import { commandsNamed } from "./command-modules.js";

// A reader that stops early (`provenant replay trace.jsonl | head`) closes the pipe: end quietly
// instead of crashing with a stack trace on the next write. The status is the one the command
// already chose (a hook's answer keeps its own), else 141, a closed pipe's usual status: the
// command did not finish, so it must not report success (`ledger verify | head` under pipefail).
process.stdout.on("error", (error: NodeJS.ErrnoException) => {
  // A command that speaks a protocol on stdout (the MCP proxy) handles its own closed pipe: it
  // stops its server and closes the guard, which flushes the ledger.
  if (process.stdout.listenerCount("error") > 1) return;
  if (error.code !== "EPIPE") throw error;
  process.exit(typeof process.exitCode === "number" ? process.exitCode : 141);
});

const program = new Command();
program
  .name("provenant")
  .description("A trust layer for tool-using LLM agents.")
  .version(packageVersion(), "-V, --version", "print the version")
  .showHelpAfterError()
  .enablePositionalOptions();

// Only the module of the command named is loaded (all of them for help or a name none has).
for (const register of await commandsNamed(process.argv[2])) register(program);

await program.parseAsync(process.argv);

function packageVersion(): string {
  const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version?: unknown };
  return typeof pkg.version === "string" ? pkg.version : "unknown";
}
