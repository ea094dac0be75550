import type { Command } from "commander";

export function registerLedgerCommands(program: Command): void {
  void program;
}
