#!/usr/bin/env node
import { readFileSync } from "node:fs";
import { Command } from "commander";
import { registerAuthCommands } from "./auth.js";
import { registerBenchCommands } from "./bench-agentdojo.js";
import { registerBlockedWritesCommands } from "./blocked-writes.js";
import { registerBrokerCommands } from "./broker.js";
import { registerConfigCommands } from "./config.js";
import { registerConsoleCommands } from "./console.js";
import { registerDemoCommands } from "./demo.js";
import { registerFileLabelCommands } from "./file-labels.js";
import { registerHookCommands } from "./hook.js";
import { registerInitCommands } from "./init.js";
import { registerLedgerCommands } from "./ledger.js";
import { registerMcpCommands } from "./mcp.js";
import { registerInitMcpCommand } from "./init-mcp.js";
import { registerReplayCommands } from "./replay.js";
import { registerSigCommands } from "./sig.js";

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

registerDemoCommands(program);
registerReplayCommands(program);
registerConfigCommands(program);
registerAuthCommands(program);
registerLedgerCommands(program);
registerSigCommands(program);
registerBrokerCommands(program);
registerBlockedWritesCommands(program);
registerFileLabelCommands(program);
registerBenchCommands(program);
registerMcpCommands(program);
registerInitMcpCommand(program);
registerConsoleCommands(program);
registerHookCommands(program);
registerInitCommands(program);

await program.parseAsync(process.argv);

function packageVersion(): string {
  const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version?: unknown };
  return typeof pkg.version === "string" ? pkg.version : "unknown";
}
