import { Command } from "commander";
import { describe, expect, it } from "vitest";
import { commandsNamed } from "../../src/cli/command-modules.js";

const program = (): Command => new Command().enablePositionalOptions();

describe("the CLI's command modules", () => {
  it("load for a command only the modules that register it, and every command is found that way", async () => {
    const every = await commandsNamed(undefined);
    const all = program();
    for (const register of every) register(all);
    const names = all.commands.map((command) => command.name());
    expect(names).toEqual(expect.arrayContaining(["demo", "replay", "auth", "ledger", "sig", "broker", "mcp", "approve", "approvals", "init", "console", "hook", "labels", "bench"]));
    for (const name of names) {
      const alone = program();
      const registers = await commandsNamed(name);
      expect(registers.length, name).toBeLessThan(every.length);
      for (const register of registers) register(alone);
      expect(alone.commands.map((command) => command.name()), name).toContain(name);
      // A command spread over modules (init's hosts) has all of its subcommands.
      expect(alone.commands.find((command) => command.name() === name)?.commands.map((c) => c.name()), name).toEqual(all.commands.find((command) => command.name() === name)?.commands.map((c) => c.name()));
    }
  });

  it("load every module for help, a version, or a name none registers (to suggest the nearest)", async () => {
    const every = (await commandsNamed(undefined)).length;
    for (const first of ["--help", "-V", "help", "authh", "", "__proto__", "constructor"]) {
      expect((await commandsNamed(first)).length, first).toBe(every);
    }
  });
});
