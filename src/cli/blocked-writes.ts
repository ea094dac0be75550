import type { Command } from "commander";

export function registerBlockedWritesCommands(program: Command): void {
  void program;
}
