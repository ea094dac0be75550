import type { Command } from "commander";

export function registerBenchCommands(program: Command): void {
  void program;
}
