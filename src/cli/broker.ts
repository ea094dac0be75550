import type { Command } from "commander";

export function registerBrokerCommands(program: Command): void {
  void program;
}
