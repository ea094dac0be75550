import type { Command } from "commander";

export function registerSigCommands(program: Command): void {
  void program;
}
