import { execFile, execFileSync, spawn, type ChildProcess } from "node:child_process";
import { copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { randomUUID } from "node:crypto";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { GatewayCalls } from "./gateway-calls.js";

export const REPO = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");

export interface OpenClawInstall {
  readonly node: string;
  readonly entry: string;
}

let install: OpenClawInstall | undefined;

/** The pinned OpenClaw and Node, installed into the cache on first use (see scripts/openclaw-e2e-install.sh). */
export function openClawInstall(): OpenClawInstall {
  if (install === undefined) {
    const out = execFileSync("bash", [join(REPO, "scripts/openclaw-e2e-install.sh")], { encoding: "utf8", stdio: ["ignore", "pipe", "inherit"], timeout: 600_000 });
    const [node, entry] = out.trim().split("\n");
    if (node === undefined || entry === undefined) throw new Error(`openclaw-e2e-install.sh printed ${JSON.stringify(out)}`);
    install = { node, entry };
  }
  return install;
}

/**
 * The plugin as OpenClaw would install it from the package: a directory with package.json
 * (`openclaw.extensions`), openclaw.plugin.json and the built dist/, built from this checkout.
 */
export function packagedPlugin(root: string, options: { readonly asCheckout?: boolean } = {}): string {
  const dir = join(root, options.asCheckout === true ? "provenant-checkout" : "provenant-package");
  mkdirSync(dir, { recursive: true });
  const pkg = repoPackage();
  const extensions = pkg.openclaw.extensions;
  for (const entry of extensions) if (!existsSync(join(REPO, entry))) throw new Error(`${entry} is missing: run npm run build first`);
  if (options.asCheckout === true) {
    // What a user's built checkout holds for OpenClaw, without this checkout's .cache/: a linked
    // plugin directory holding other packages (the pinned OpenClaw and its bundled plugins) is
    // refused by OpenClaw ("conflicting child rows").
    copyFileSync(join(REPO, "package.json"), join(dir, "package.json"));
    copyFileSync(join(REPO, "package-lock.json"), join(dir, "package-lock.json"));
  } else {
    writeFileSync(
      join(dir, "package.json"),
      JSON.stringify({ name: "provenant", version: "0.0.0-e2e", type: "module", openclaw: { extensions } }, null, 2),
    );
  }
  copyFileSync(join(REPO, "openclaw.plugin.json"), join(dir, "openclaw.plugin.json"));
  // OpenClaw refuses an entry whose real path leaves the package, so dist/ is copied, not linked.
  cpSync(join(REPO, "dist"), join(dir, "dist"), { recursive: true });
  if (options.asCheckout === true) {
    // A checkout's node_modules is its own (OpenClaw's install scan refuses links leaving the root).
    cpSync(join(REPO, "node_modules"), join(dir, "node_modules"), { recursive: true, verbatimSymlinks: true });
    return dir;
  }
  // Only the runtime dependencies, as an npm install of the package would have them (OpenClaw
  // inspects a plugin's files when it loads it; the whole dev tree would be slow and untrue).
  mkdirSync(join(dir, "node_modules"));
  for (const dep of Object.keys(pkg.dependencies ?? {})) {
    // A scoped package (`@scope/name`) sits in its scope's directory.
    mkdirSync(dirname(join(dir, "node_modules", dep)), { recursive: true });
    symlinkSync(join(REPO, "node_modules", dep), join(dir, "node_modules", dep));
  }
  return dir;
}

function repoPackage(): { readonly dependencies?: Record<string, string>; readonly openclaw: { readonly extensions: string[] } } {
  return JSON.parse(readFileSync(join(REPO, "package.json"), "utf8")) as ReturnType<typeof repoPackage>;
}

export interface HomeOptions {
  readonly modelUrl: string;
  /** provenant's config, or null to run OpenClaw with the plugin installed but disabled (the control run). */
  readonly provenant: Record<string, unknown> | null;
  /** Extra plugin directories to load (test fixtures). */
  readonly extraPlugins?: readonly string[];
  readonly extraPluginIds?: readonly string[];
  readonly hooksToken?: string;
  /** OpenClaw's `hooks.mappings` (with `hooksToken`): the paths under `/hooks/` it maps to runs of its own. */
  readonly hookMappings?: readonly unknown[];
  /**
   * OpenClaw's `tools.toolSearch`. Absent: left unset, which is the host's default (structured
   * Tool Search: the model reaches most tools through `tool_call`).
   */
  readonly toolSearch?: unknown;
  /**
   * A Telegram channel against a Bot API mock: its root and token, the users allowed to DM the
   * bot and the groups it serves; `owners` go into `commands.ownerAllowFrom` (OpenClaw's owner).
   */
  readonly telegram?: {
    readonly apiRoot: string;
    readonly token: string;
    readonly allowFrom: readonly number[];
    readonly owners: readonly number[];
    readonly groups?: readonly number[];
  };
  /** OpenClaw's managed forward proxy (`proxy.proxyUrl`): everything but loopback goes through it. */
  readonly proxyUrl?: string;
  /** OpenClaw's `mcp.servers`: the MCP servers it runs and offers the model the tools of. */
  readonly mcpServers?: Readonly<Record<string, unknown>>;
  /** OpenClaw's bundled internal hooks to turn on (`hooks.internal.entries`); its onboarding turns on `session-memory`. */
  readonly internalHooks?: readonly string[];
  /**
   * A second model of the scripted provider that can see images (`victim/eyes`), as OpenClaw's
   * `agents.defaults.imageModel`: the one it describes images with for the text-only chat model.
   */
  readonly imageModel?: boolean;
  /**
   * Audio transcription as OpenClaw's media understanding runs it, with a command of its own
   * (`tools.media.models`, capability `audio`): `cat`, so what a recording says is its bytes.
   */
  readonly audioTranscriber?: boolean;
  /** Extra environment for OpenClaw's processes (a fixture's log file). */
  readonly env?: Readonly<Record<string, string>>;
}

export interface AgentReply {
  readonly text: string;
  readonly raw: unknown;
  readonly stderr: string;
}

export async function freePort(): Promise<number> {
  return await new Promise((resolvePort, reject) => {
    const server = createServer();
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => (typeof address === "object" && address !== null ? resolvePort(address.port) : reject(new Error("no port"))));
    });
  });
}

/** An isolated OpenClaw home (state, config, workspace) in a temporary directory. */
export class OpenClawHome {
  readonly root: string;
  readonly home: string;
  readonly workspace: string;
  readonly configPath: string;
  readonly gatewayToken = `e2e-${Math.random().toString(36).slice(2)}${Math.random().toString(36).slice(2)}`;
  gatewayPort = 0;
  private gateway: ChildProcess | null = null;
  private gatewayLog = "";
  private nodeHost: ChildProcess | null = null;
  private readonly gatewayCalls: GatewayCalls;

  constructor(
    readonly name: string,
    private readonly options: HomeOptions,
  ) {
    this.root = mkdtempSync(join(tmpdir(), `provenant-e2e-${name}-`));
    this.home = join(this.root, "home");
    this.workspace = join(this.root, "workspace");
    this.configPath = join(this.home, ".openclaw", "openclaw.json");
    mkdirSync(dirname(this.configPath), { recursive: true });
    mkdirSync(this.workspace, { recursive: true });
    this.gatewayCalls = new GatewayCalls(openClawInstall, () => this.env(), this.workspace);
  }

  async writeConfig(): Promise<void> {
    if (this.gatewayPort === 0) this.gatewayPort = await freePort();
    // The control run installs the plugin exactly the same way and disables it, so both runs
    // load the same set of plugins and differ only in provenant being on.
    const loadPaths = [packagedPlugin(this.root), ...(this.options.extraPlugins ?? [])];
    const entries: Record<string, unknown> = {
      provenant:
        this.options.provenant === null
          ? { enabled: false }
          : { enabled: true, hooks: { allowConversationAccess: true }, config: this.options.provenant },
    };
    for (const id of this.options.extraPluginIds ?? []) entries[id] = { enabled: true, hooks: { allowConversationAccess: true } };
    const hooks = {
      ...(this.options.hooksToken === undefined ? {} : { enabled: true, token: this.options.hooksToken, path: "/hooks", allowedAgentIds: ["main"], allowRequestSessionKey: true }),
      ...(this.options.hookMappings === undefined ? {} : { mappings: this.options.hookMappings }),
      ...(this.options.internalHooks === undefined ? {} : { internal: { entries: Object.fromEntries(this.options.internalHooks.map((id) => [id, { enabled: true }])) } }),
    };
    const config = {
      models: {
        mode: "replace",
        providers: {
          victim: {
            baseUrl: this.options.modelUrl,
            apiKey: "e2e-no-key",
            api: "openai-completions",
            models: [
              { id: "victim", name: "Obedient victim", reasoning: false, input: ["text"], contextWindow: 128000, maxTokens: 4096, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 } },
              ...(this.options.imageModel === true
                ? [{ id: "eyes", name: "Obedient eyes", reasoning: false, input: ["text", "image"], contextWindow: 128000, maxTokens: 4096, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 } }]
                : []),
            ],
          },
        },
      },
      agents: { defaults: { model: { primary: "victim/victim" }, ...(this.options.imageModel === true ? { imageModel: { primary: "victim/eyes" } } : {}), workspace: this.workspace } },
      tools: {
        ...(this.options.toolSearch === undefined ? {} : { toolSearch: this.options.toolSearch }),
        web: { fetch: { ssrfPolicy: { dangerouslyAllowPrivateNetwork: true } } },
        ...(this.options.audioTranscriber === true ? { media: { models: [{ type: "cli", command: "/bin/cat", args: ["{{AttachmentPath}}"], capabilities: ["audio"] }], audio: { enabled: true } } } : {}),
      },
      gateway: { mode: "local", port: this.gatewayPort, bind: "loopback", auth: { mode: "token", token: this.gatewayToken } },
      ...(Object.keys(hooks).length === 0 ? {} : { hooks }),
      plugins: { allow: Object.keys(entries), load: { paths: loadPaths }, entries },
      ...(this.options.telegram === undefined ? {} : telegramConfig(this.options.telegram)),
      ...(this.options.proxyUrl === undefined ? {} : { proxy: { proxyUrl: this.options.proxyUrl } }),
      ...(this.options.mcpServers === undefined ? {} : { mcp: { servers: this.options.mcpServers } }),
    };
    writeFileSync(this.configPath, JSON.stringify(config, null, 2));
  }

  private env(): NodeJS.ProcessEnv {
    const { node } = openClawInstall();
    return {
      PATH: `${dirname(node)}:/usr/bin:/bin`,
      HOME: this.home,
      OPENCLAW_HOME: this.home,
      OPENCLAW_GATEWAY_TOKEN: this.gatewayToken,
      NO_COLOR: "1",
      TZ: "UTC",
      // The embedding preset OpenClaw documents, plus no update checks: nothing here reaches
      // beyond loopback, and a test must not wait on the network.
      OPENCLAW_DISABLE_BONJOUR: "1",
      OPENCLAW_NO_RESPAWN: "1",
      OPENCLAW_EXEC_SHELL_SNAPSHOT: "0",
      OPENCLAW_NO_AUTO_UPDATE: "1",
      ...this.options.env,
    };
  }

  /** Runs OpenClaw's CLI; resolves with stdout, stderr and the exit code. */
  cli(args: readonly string[], timeoutMs = 120_000): Promise<{ stdout: string; stderr: string; code: number }> {
    const { node, entry } = openClawInstall();
    return new Promise((resolveRun) => {
      execFile(node, [entry, ...args], { env: this.env(), cwd: this.workspace, timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === "number" ? error.code : 1;
        resolveRun({ stdout, stderr, code });
      });
    });
  }

  /**
   * One agent turn as `openclaw agent --agent main --json --timeout 120` runs it: embedded with
   * `local` (the CLI itself), else through the gateway (the CLI's own call, see GatewayCalls).
   */
  async agent(message: string, opts: { local: boolean; sessionKey?: string }): Promise<AgentReply> {
    if (!opts.local) {
      const params = { message, agentId: "main", sessionKey: opts.sessionKey, deliver: false, timeout: 120, idempotencyKey: randomUUID() };
      // The CLI's identity for an agent run on a local gateway, and its wait: the run's timeout and 30 s.
      const raw = await this.gatewayCalls.call("agent", params, { opts: { json: true, timeout: "150000" }, extra: { expectFinal: true, progress: false, scopes: ["operator.admin"] } });
      const status = (raw as { status?: unknown }).status;
      if (status !== "ok" && status !== "completed") throw new Error(`openclaw agent through the gateway ended ${String(status)}: ${JSON.stringify(raw).slice(0, 4000)}`);
      return { text: replyText(raw), raw, stderr: "" };
    }
    const args = ["agent", "--agent", "main", "--message", message, "--json", "--timeout", "120", "--local"];
    if (opts.sessionKey !== undefined) args.push("--session-key", opts.sessionKey);
    const run = await this.cli(args, 180_000);
    if (run.code !== 0) throw new Error(`openclaw agent exited ${run.code}:\n${run.stderr.slice(-4000)}`);
    const raw: unknown = JSON.parse(run.stdout);
    return { text: replyText(raw), raw, stderr: run.stderr };
  }

  /** A gateway RPC as `openclaw gateway call <method> --json --timeout 60000` makes it. */
  async rpc(method: string, params: Record<string, unknown>): Promise<unknown> {
    return await this.gatewayCalls.call(method, params, { opts: { json: true, timeout: "60000" }, extra: { defaultTimeoutMs: 60_000, sharedStateMode: "read-only" } });
  }

  /**
   * Sends a chat message the way a chat client does (`chat.send`), so slash commands are handled
   * as commands; returns the first reply that starts with `expectPrefix`.
   */
  async chatSend(sessionKey: string, message: string, expectPrefix = "provenant:"): Promise<string> {
    await this.rpc("chat.send", { sessionKey, message, idempotencyKey: `e2e-${Date.now()}-${Math.random().toString(36).slice(2)}` });
    const deadline = Date.now() + 60_000;
    while (Date.now() < deadline) {
      const history = JSON.stringify(await this.rpc("chat.history", { sessionKey, limit: 20 }));
      const texts = [...history.matchAll(/"text":"((?:[^"\\]|\\.)*)"/g)].map((m) => JSON.parse(`"${m[1] ?? ""}"`) as string);
      const reply = texts.reverse().find((t) => t.startsWith(expectPrefix));
      if (reply !== undefined) return reply;
      await sleep(500);
    }
    throw new Error(`no reply to ${message} in ${sessionKey}`);
  }

  /**
   * Starts the gateway; once more if it gave up at startup (on a loaded machine its state lease
   * can miss its five-second start window, and it exits saying so).
   */
  async startGateway(): Promise<void> {
    try {
      await this.startGatewayOnce();
    } catch (error) {
      if (!/did not become ready/.test(String(error))) throw error;
      await this.stopGateway();
      await this.startGatewayOnce();
    }
  }

  private async startGatewayOnce(): Promise<void> {
    const { node, entry } = openClawInstall();
    this.gatewayLog = "";
    const child = spawn(node, [entry, "gateway", "run", "--port", String(this.gatewayPort), ...(process.env.PROVENANT_E2E_VERBOSE ? ["--verbose"] : [])], { env: this.env(), cwd: this.workspace, stdio: ["ignore", "pipe", "pipe"] });
    this.gateway = child;
    const onData = (chunk: Buffer): void => {
      this.gatewayLog += chunk.toString("utf8");
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", onData);
    const deadline = Date.now() + 120_000;
    while (Date.now() < deadline) {
      if (child.exitCode !== null) throw new Error(`gateway exited ${child.exitCode}:\n${this.gatewayLog.slice(-4000)}`);
      if (/\[gateway\][^\n]*\bready\b/.test(this.gatewayLog)) {
        await this.waitForHealth(deadline);
        return;
      }
      await sleep(200);
    }
    throw new Error(`gateway did not become ready:\n${this.gatewayLog.slice(-4000)}`);
  }

  private async waitForHealth(deadline: number): Promise<void> {
    while (Date.now() < deadline) {
      try {
        const res = await fetch(`http://127.0.0.1:${this.gatewayPort}/healthz`);
        if (res.status < 500) return;
      } catch {
        // not listening yet
      }
      await sleep(200);
    }
  }

  log(): string {
    return this.gatewayLog;
  }

  /**
   * Changes the configuration file as an owner editing it would, without waiting for a running
   * gateway to take the change up (a change it reads where it is used logs no reload of its own).
   */
  editConfig(change: (config: Record<string, unknown>) => void): void {
    const config = JSON.parse(readFileSync(this.configPath, "utf8")) as Record<string, unknown>;
    change(config);
    writeFileSync(this.configPath, JSON.stringify(config, null, 2));
  }

  /**
   * Changes the configuration file under the running gateway, as an owner editing it would, and
   * waits until the gateway has taken up the change of `key` (its hot reload).
   */
  async changeConfig(key: string, change: (config: Record<string, unknown>) => void): Promise<void> {
    const from = this.gatewayLog.length;
    this.editConfig(change);
    const deadline = Date.now() + 60_000;
    // The gateway's own word that the change is in effect (logged at info, as the change itself).
    const applied = new RegExp(`config hot reload applied \\([^)\\n]*${key.replace(/\./g, "\\.")}`);
    while (Date.now() < deadline) {
      if (applied.test(this.gatewayLog.slice(from))) return;
      await sleep(200);
    }
    throw new Error(`the gateway did not reload ${key}:\n${this.gatewayLog.slice(from).slice(-4000)}`);
  }

  /**
   * Pairs a headless node host (`openclaw node run`) with the running gateway: another machine as
   * far as OpenClaw can tell, with a home of its own, running commands in `dir`. The device pairs
   * silently (a same-host node does); its command surface is approved as an operator would
   * (`openclaw nodes approve`). Resolves once the node is connected and may run `system.run`.
   */
  async pairNode(dir: string): Promise<void> {
    const { node, entry } = openClawInstall();
    const nodeHome = join(this.root, "node-home");
    mkdirSync(nodeHome, { recursive: true });
    const env = { ...this.env(), HOME: nodeHome, OPENCLAW_HOME: nodeHome };
    const child = spawn(node, [entry, "node", "run", "--host", "127.0.0.1", "--port", String(this.gatewayPort), "--display-name", "e2e-node"], { env, cwd: dir, stdio: ["ignore", "pipe", "pipe"] });
    this.nodeHost = child;
    let log = "";
    child.stdout?.on("data", (chunk: Buffer) => (log += chunk.toString("utf8")));
    child.stderr?.on("data", (chunk: Buffer) => (log += chunk.toString("utf8")));
    // Through the gateway as the CLI's `nodes list`, `devices list` and `nodes approve` ask it
    // (each CLI start would cost seconds of CPU, once a second).
    const call = (method: string, params: Record<string, unknown>, scopes: readonly string[]) =>
      this.gatewayCalls.call(method, params, { opts: { json: true, timeout: "60000" }, extra: { scopes } });
    const deadline = Date.now() + 120_000;
    while (Date.now() < deadline) {
      if (child.exitCode !== null) throw new Error(`the node host exited ${child.exitCode}:\n${log.slice(-4000)}`);
      const nodes = (await call("node.list", {}, ["operator.read"])) as { nodes?: { connected?: boolean; paired?: boolean; approvalState?: string; commands?: string[] }[] };
      if (nodes.nodes?.some((n) => n.connected === true && n.approvalState === "approved" && n.commands?.includes("system.run") === true) === true) return;
      const devices = (await call("device.pair.list", {}, ["operator.pairing"])) as { paired?: { pendingNodeSurface?: { requestId?: string } }[] };
      const request = devices.paired?.find((d) => d.pendingNodeSurface?.requestId !== undefined)?.pendingNodeSurface?.requestId;
      if (request !== undefined) await call("node.pair.approve", { requestId: request }, ["operator.pairing", "operator.admin"]);
      await sleep(1000);
    }
    throw new Error(`the node host did not pair:\n${log.slice(-4000)}`);
  }

  async stopGateway(): Promise<void> {
    const child = this.gateway;
    this.gateway = null;
    if (child === null || child.exitCode !== null) return;
    const exited = new Promise<void>((resolveExit) => child.once("exit", () => resolveExit()));
    child.kill("SIGTERM");
    const timer = setTimeout(() => child.kill("SIGKILL"), 20_000);
    await exited;
    clearTimeout(timer);
  }

  readWorkspace(file: string): string | null {
    const path = join(this.workspace, file);
    return existsSync(path) ? readFileSync(path, "utf8") : null;
  }

  async dispose(): Promise<void> {
    this.nodeHost?.kill("SIGKILL");
    this.gatewayCalls.close();
    await this.stopGateway();
    rmSync(this.root, { recursive: true, force: true });
  }
}

function telegramConfig(telegram: NonNullable<HomeOptions["telegram"]>): Record<string, unknown> {
  return {
    channels: {
      telegram: {
        enabled: true,
        botToken: telegram.token,
        apiRoot: telegram.apiRoot,
        network: { dangerouslyAllowPrivateNetwork: true },
        dmPolicy: "allowlist",
        allowFrom: telegram.allowFrom.map(String),
        groupPolicy: "open",
        // The host's defaults for each group (it answers when mentioned).
        groups: Object.fromEntries((telegram.groups ?? []).map((id) => [String(id), {}])),
        streaming: { mode: "off" },
      },
    },
    commands: { ownerAllowFrom: telegram.owners.map((id) => `telegram:${id}`) },
  };
}

/** The reply text from `openclaw agent --json`, embedded (`payloads`) or through the gateway (`result.payloads`). */
export function replyText(raw: unknown): string {
  const record = raw as { payloads?: { text?: unknown }[]; result?: { payloads?: { text?: unknown }[] } };
  const payloads = record.payloads ?? record.result?.payloads ?? [];
  return payloads.map((p) => (typeof p.text === "string" ? p.text : "")).join("\n");
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
