#!/usr/bin/env node
import { runClaudeCodeHook } from "./claude-code-hook.js";

// The hook entry Claude Code runs for every event (`provenant init claude-code` installs it):
// `provenant hook claude-code` without loading the rest of the command line.
const [host, ...rest] = process.argv.slice(2);
if (host !== "claude-code") {
  process.stderr.write(`provenant-hook: unknown host ${JSON.stringify(host ?? "")}; the one supported is claude-code\n`);
  process.exitCode = 2;
} else {
  await runClaudeCodeHook(rest);
}
