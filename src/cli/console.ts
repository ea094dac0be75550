import { statSync } from "node:fs";
import type { Command } from "commander";
import { displayText } from "../core/safe-display.js";
import { startConsole } from "../service/console/console-server.js";
import { AGENT_WORKSPACE_HELP, findWorkspace } from "./agent-workspace.js";
import { exitWith } from "./exit.js";

interface ConsoleCommandOptions {
  readonly workspace?: string;
  readonly port?: string;
  readonly ipv6?: boolean;
}

function parsePort(text: string): number {
  const n = /^\d{1,5}$/.test(text) ? Number(text) : Number.NaN;
  if (!(n >= 0 && n <= 65535)) throw new RangeError(`--port must be a whole number from 0 to 65535, got ${JSON.stringify(text)}`);
  return n;
}

/** `provenant console`: the owner's web console on loopback, until interrupted. */
export function registerConsoleCommands(program: Command): void {
  program
    .command("console")
    .description("serve the owner's console (sessions, staged writes, ledger, provenance graphs) on loopback; prints a one-time login URL")
    .option("--workspace <dir>", AGENT_WORKSPACE_HELP)
    .option("--port <n>", "port on 127.0.0.1 (default: a free one)")
    .option("--ipv6", "listen on ::1 instead of 127.0.0.1")
    .action(async (opts: ConsoleCommandOptions) => {
      try {
        const found = findWorkspace(opts.workspace, { cwd: process.cwd(), env: process.env });
        if (!statSync(found.dir, { throwIfNoEntry: false })?.isDirectory()) {
          throw new Error(`workspace ${found.dir} (from ${found.how}) is not a directory; name it with --workspace`);
        }
        const running = await startConsole({
          workspace: found.dir,
          ...(opts.port === undefined ? {} : { port: parsePort(opts.port) }),
          host: opts.ipv6 === true ? "::1" : "127.0.0.1",
        });
        process.stderr.write(`provenant console: workspace ${displayText(found.dir)} (from ${displayText(found.how)})\n`);
        process.stdout.write(`${running.loginUrl}\n`);
        const stop = (): void => {
          void running.close().then(() => process.exit(0));
        };
        process.once("SIGINT", stop);
        process.once("SIGTERM", stop);
      } catch (error) {
        exitWith("console", error);
      }
    });
}
