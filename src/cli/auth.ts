import type { Command } from "commander";

export function registerAuthCommands(program: Command): void {
  void program;
}
