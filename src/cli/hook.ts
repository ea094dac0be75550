import type { Command } from "commander";
import { runClaudeCodeHook } from "./claude-code-hook.js";

export function registerHookCommands(program: Command): void {
  program
    .command("hook")
    .description("answer one agent-host hook event on stdin (installed by `provenant init`)")
    .argument("<host>", "the host whose hook protocol to speak: claude-code")
    .option("--config <file>", "configuration (JSON); default: ~/.claude/provenant.json")
    .action(async (host: string, options: { config?: string }) => {
      if (host !== "claude-code") {
        process.stderr.write(`provenant hook: unknown host ${JSON.stringify(host)}; the one supported is claude-code\n`);
        process.exitCode = 2;
        return;
      }
      await runClaudeCodeHook(options.config === undefined ? [] : ["--config", options.config]);
    });
}
