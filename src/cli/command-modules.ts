import type { Command } from "commander";

type Register = (program: Command) => void;

/**
 * Each command's module, by the top-level commands it registers, in the order help lists them.
 * Loading every module before any command ran (the guard, the MCP SDK, the console's server) cost
 * half a second of each run, a hook's or a script's included.
 */
const COMMAND_MODULES: readonly { readonly names: readonly string[]; readonly load: () => Promise<Register> }[] = [
  { names: ["demo"], load: async () => (await import("./demo.js")).registerDemoCommands },
  { names: ["replay"], load: async () => (await import("./replay.js")).registerReplayCommands },
  { names: ["config"], load: async () => (await import("./config.js")).registerConfigCommands },
  { names: ["auth"], load: async () => (await import("./auth.js")).registerAuthCommands },
  { names: ["ledger"], load: async () => (await import("./ledger.js")).registerLedgerCommands },
  { names: ["sig"], load: async () => (await import("./sig.js")).registerSigCommands },
  { names: ["broker"], load: async () => (await import("./broker.js")).registerBrokerCommands },
  { names: ["blocked-writes"], load: async () => (await import("./blocked-writes.js")).registerBlockedWritesCommands },
  { names: ["labels"], load: async () => (await import("./file-labels.js")).registerFileLabelCommands },
  { names: ["bench"], load: async () => (await import("./bench-agentdojo.js")).registerBenchCommands },
  { names: ["mcp", "approve", "approvals"], load: async () => (await import("./mcp.js")).registerMcpCommands },
  { names: ["init"], load: async () => (await import("./init-mcp.js")).registerInitMcpCommand },
  { names: ["console"], load: async () => (await import("./console.js")).registerConsoleCommands },
  { names: ["hook"], load: async () => (await import("./hook.js")).registerHookCommands },
  { names: ["init"], load: async () => (await import("./init.js")).registerInitCommands },
];

/**
 * The registrations for a command line whose first argument is `name`: those of the modules that
 * register a command of that name, else all of them (for help, a version, or a name to suggest
 * the nearest of).
 */
export async function commandsNamed(name: string | undefined): Promise<Register[]> {
  const named = COMMAND_MODULES.filter((module) => name !== undefined && module.names.includes(name));
  return await Promise.all((named.length > 0 ? named : COMMAND_MODULES).map(async (module) => await module.load()));
}
