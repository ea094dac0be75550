import type { AddressInfo } from "node:net";
import { createAdaptorServer } from "@hono/node-server";
import { Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import { defaultCheckpointKeyPath, defaultLedgerPath, publicKeyPathFor } from "../../ledger/index.js";
import { displayText } from "../../core/safe-display.js";
import { ConsoleAccess } from "./console-access.js";
import { registerApprovalRoutes } from "./console-approvals.js";
import { CONSOLE_CSS, CONSOLE_JS } from "./console-assets.js";
import type { ConsoleContext } from "./console-context.js";
import { registerGraphRoutes } from "./console-graphs.js";
import { registerLedgerRoutes } from "./console-ledger.js";
import { consoleSecurity } from "./console-security.js";
import { registerSessionRoutes } from "./console-sessions.js";
import { registerWriteRoutes } from "./console-writes.js";

export interface ConsoleOptions {
  readonly workspace: string;
  /** 0 (the default) lets the system choose a free port. */
  readonly port?: number;
  /** Loopback only: 127.0.0.1 (the default) or ::1. */
  readonly host?: "127.0.0.1" | "::1";
  readonly env?: NodeJS.ProcessEnv;
  readonly log?: (message: string) => void;
  readonly now?: () => Date;
}

export interface RunningConsole {
  /** The URL to open, with the one-time token. */
  readonly loginUrl: string;
  /** The console's origin, without credentials. */
  readonly origin: string;
  readonly port: number;
  close(): Promise<void>;
}

/** Forms post a few fields; nothing larger is ever legitimate. */
const MAX_BODY_BYTES = 16 * 1024;

/** The owner's console: loopback HTTP over the workspace's on-disk state. */
export async function startConsole(options: ConsoleOptions): Promise<RunningConsole> {
  const env = options.env ?? process.env;
  const log = options.log ?? ((message: string) => process.stderr.write(`${message}\n`));
  const access = new ConsoleAccess();
  const signingKey = env.PROVENANT_LEDGER_KEY ?? defaultCheckpointKeyPath(env);
  const ctx: ConsoleContext = {
    workspace: options.workspace,
    ledgerPath: defaultLedgerPath(options.workspace),
    checkpointPublicKey: env.PROVENANT_LEDGER_PUBKEY ?? publicKeyPathFor(signingKey),
    access,
    now: options.now ?? (() => new Date()),
    log,
  };
  let port = 0;
  const app = new Hono();
  app.use(
    "*",
    consoleSecurity(access, () => port, (why, c) => log(`console: refused ${c.req.method} ${displayText(c.req.path)} (${why})`)),
  );
  app.use("*", bodyLimit({ maxSize: MAX_BODY_BYTES, onError: (c) => c.text("request too large", 413) }));
  app.get("/", (c) => c.redirect("/approvals", 303));
  // Browsers ask for it on every page; an answer keeps a 404 out of the owner's console log.
  app.get("/favicon.ico", (c) => c.body(null, 204));
  app.get("/assets/console.css", (c) => c.body(CONSOLE_CSS, 200, { "Content-Type": "text/css; charset=utf-8" }));
  app.get("/assets/console.js", (c) => c.body(CONSOLE_JS, 200, { "Content-Type": "text/javascript; charset=utf-8" }));
  registerApprovalRoutes(app, ctx);
  registerSessionRoutes(app, ctx);
  registerWriteRoutes(app, ctx);
  registerLedgerRoutes(app, ctx);
  registerGraphRoutes(app, ctx);
  app.notFound((c) => c.text("not found", 404));
  app.onError((error, c) => {
    log(`console: ${c.req.method} ${displayText(c.req.path)} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    return c.text("the console could not do that; see its log", 500);
  });

  const host = options.host ?? "127.0.0.1";
  const server = createAdaptorServer({ fetch: app.fetch });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  port = (server.address() as AddressInfo).port;
  const origin = `http://${host === "::1" ? "[::1]" : host}:${port}`;
  return {
    loginUrl: `${origin}/login?token=${access.loginToken ?? ""}`,
    origin,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        if ("closeAllConnections" in server) server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
