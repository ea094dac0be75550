import { join } from "node:path";
import { displayText } from "../../core/safe-display.js";
import { writeFileAtomic } from "../../state/atomic-file.js";
import { ensureDirDurable } from "../../state/durable-dir.js";
import { startConsole, type RunningConsole } from "./console-server.js";

export interface GatewayConsoleOptions {
  /** The workspace whose state the console shows (the plugin's `workspaceDir`, else OpenClaw's default agent workspace). */
  readonly workspace: () => string;
  readonly port: number;
  readonly log: (message: string) => void;
}

/** Where the gateway console's one-time login URL is written, under OpenClaw's state directory. */
export function consoleLoginFile(stateDir: string): string {
  return join(stateDir, "provenant", "console-login.url");
}

/**
 * The owner's console as a background service of the OpenClaw gateway: the same server as
 * `provenant console` (loopback only, one-time token, cookie, CSRF and Origin/Host checks, CSP),
 * started once in the gateway process, so the console and the guard holding a call are one
 * process. OpenClaw could also route it under the gateway's own HTTP server, but there it would
 * share its origin with the Control UI and every other plugin's routes, whose scripts could read
 * the console's CSRF token and post approvals; its own port is its own origin.
 *
 * The login URL goes to a file (0600, in a 0700 directory) under OpenClaw's state directory, not
 * into the gateway log: OpenClaw's logger masks tokens, and its log files are kept and shipped
 * where a one-time secret has no business. The log names the file.
 */
export function gatewayConsoleService(options: GatewayConsoleOptions): { id: string; start: (ctx: { stateDir: string }) => Promise<void>; stop: () => Promise<void> } {
  let running: RunningConsole | undefined;
  return {
    id: "provenant-console",
    async start(ctx) {
      if (running !== undefined) return;
      const workspace = options.workspace();
      const started = await startConsole({ workspace, port: options.port, host: "127.0.0.1", log: options.log });
      try {
        const file = consoleLoginFile(ctx.stateDir);
        ensureDirDurable(join(ctx.stateDir, "provenant"));
        writeFileAtomic(file, `${started.loginUrl}\n`);
        options.log(`owner's console for ${displayText(workspace)} at ${started.origin}; its one-time login URL is in ${displayText(file)}`);
      } catch (error) {
        await started.close();
        throw error;
      }
      running = started;
    },
    async stop() {
      const current = running;
      running = undefined;
      await current?.close();
    },
  };
}
