import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { type Server, createServer as createHttpServer } from "node:http";
import { type Http2SecureServer, createSecureServer } from "node:http2";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Socket, createConnection } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signedRequestLine } from "../../src/broker/broker-client.js";
import { ConfigError, parseBrokerConfig } from "../../src/broker/broker-config.js";
import { rateLimitLog } from "../../src/broker/broker-log.js";
import { type Harness, rawExchange, startHarness } from "./harness.js";

describe("read_message_timeout is a deadline, not an idle timer", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ proxy: { read_message_timeout: "1s" }, tools: { cat: { binary: "/bin/cat", timeout: "8s" } } }, { killGraceMs: 500 });
  });
  afterAll(async () => h.close());

  it("a stdin message dribbled a byte at a time ends the tool's stdin when its deadline passes", async () => {
    const req = signedRequestLine(h.secret, { tool: "cat", args: [], cwd: "/" });
    const message = `{"type":"stdin","data":"${Buffer.from("dribbled").toString("base64")}"}\n`;
    // One byte every 150 ms: each byte would restart an idle timer, so the message would keep the tool
    // alive until its own 8 s timeout. The deadline ends stdin 1 s after the message began.
    const pieces = [req, ...message.split("")];
    const reply = await rawExchange(h.daemon.socketPath, pieces, { gapMs: 150, end: false });
    const last = reply.subarray(reply.length - 15).toString();
    expect(last).toBe('{"type":"done"}');
    expect(h.logs.some((e) => e.event === "client_message_timeout")).toBe(true);
    expect(h.logs.some((e) => e.event === "tool_timeout")).toBe(false);
  });
});

describe("read_header_timeout is a deadline for the whole request", () => {
  it("a request dribbled a byte at a time is cut when the deadline passes", async () => {
    const h = await startHarness({ proxy: { read_header_timeout: "1s" }, tools: { echo: { binary: "/bin/echo" } } });
    try {
      const req = signedRequestLine(h.secret, { tool: "echo", args: ["late"], cwd: "/" });
      const reply = await rawExchange(h.daemon.socketPath, req.split(""), { gapMs: 100, end: false });
      expect(reply.toString()).toBe('{"error":"request read timeout"}');
      expect(h.logs.find((e) => e.event === "request_read_timeout")?.fields["received"]).toBeGreaterThan(0);
    } finally {
      await h.close();
    }
  });
});

describe("log rate limit", () => {
  it("lets each event through its burst per window, counts the rest, and reports them when the window ends", () => {
    const out: { event: string; fields: Record<string, unknown> }[] = [];
    let t = 0;
    const limited = rateLimitLog((_level, event, fields = {}) => out.push({ event, fields }), { burst: 3, windowMs: 1000, exempt: new Set(["tool_started"]) }, () => t);
    for (let i = 0; i < 10; i++) limited.log("warn", "server_busy", { i });
    for (let i = 0; i < 5; i++) limited.log("info", "tool_started", { i });
    expect(out.filter((e) => e.event === "server_busy").map((e) => e.fields["i"])).toEqual([0, 1, 2]);
    expect(out.filter((e) => e.event === "tool_started")).toHaveLength(5);
    t = 1000;
    limited.log("warn", "server_busy", { i: 10 });
    expect(out.at(-2)).toEqual({ event: "log_suppressed", fields: { suppressed_event: "server_busy", count: 7, window_ms: 1000 } });
    expect(out.at(-1)).toEqual({ event: "server_busy", fields: { i: 10 } });
    limited.flush();
    expect(out.filter((e) => e.event === "log_suppressed")).toHaveLength(1);
  });
});

describe("environment passed through from the request", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ tools: { env: { binary: "/usr/bin/env" } } });
  });
  afterAll(async () => h.close());

  const envOf = async (tool: string, env: Record<string, string>, harness = h): Promise<Map<string, string>> => {
    const r = await harness.run({ tool, args: [], cwd: "/", env });
    expect(r.result).toMatchObject({ kind: "done", exitCode: 0 });
    return new Map(r.stdout.toString().trim().split("\n").map((l) => [l.slice(0, l.indexOf("=")), l.slice(l.indexOf("=") + 1)] as const));
  };

  it("denies by default the names that change which host, config or loader behaviour a tool uses", async () => {
    const names = ["GLIBC_TUNABLES", "GH_HOST", "GH_CONFIG_DIR", "XDG_CONFIG_DIRS", "CURL_HOME", "NETRC", "npm_config_registry", "NPM_CONFIG_USERCONFIG"];
    const env = await envOf("env", { HARMLESS: "yes", ...Object.fromEntries(names.map((n) => [n, "injected"])) });
    expect(env.get("HARMLESS")).toBe("yes");
    for (const n of names) expect(env.has(n)).toBe(false);
    expect(String(h.logs.findLast((e) => e.event === "request_env_dropped")?.fields["names"]).split(",").sort()).toEqual([...names].sort());
  });

  it("in allow-list mode (allowed_env) passes only the listed names", async () => {
    const listed = await startHarness({ tools: { listed: { binary: "/usr/bin/env", allowed_env: ["ONLY_THIS"] } } });
    try {
      const env = await envOf("listed", { ONLY_THIS: "1", HARMLESS: "yes" }, listed);
      expect(env.get("ONLY_THIS")).toBe("1");
      expect(env.has("HARMLESS")).toBe(false);
    } finally {
      await listed.close();
    }
  });

  it("refuses a config that lists a denied name in allowed_env, naming the key", () => {
    const config = JSON.stringify({ tools: { gh: { binary: "/bin/echo", allowed_env: ["FINE", "GH_HOST"] } } });
    expect(() => parseBrokerConfig(config)).toThrow(ConfigError);
    expect(() => parseBrokerConfig(config)).toThrow(/^tools\.gh\.allowed_env\[1\]: GH_HOST is on the denylist/);
  });
});

describe("the daemon's log", () => {
  it("rate-limits repeated records: 300 clients turned away write a bounded number of server_busy lines", async () => {
    const h = await startHarness({ proxy: { max_connections: 8, read_header_timeout: "30s" }, tools: {} });
    const holders: Socket[] = [];
    try {
      // Eight slow clients hold every slot; then 300 more arrive, 20 at a time.
      for (let i = 0; i < 8; i++) {
        const s = createConnection(h.daemon.socketPath);
        holders.push(s);
        await new Promise((r) => s.once("connect", r));
      }
      await new Promise((r) => setTimeout(r, 50));
      let busy = 0;
      for (let round = 0; round < 15; round++) {
        const replies = await Promise.all(Array.from({ length: 20 }, () => rawExchange(h.daemon.socketPath, [], { end: false })));
        busy += replies.filter((r) => r.toString() === '{"error":"server busy"}').length;
      }
      expect(busy).toBe(300);
      expect(h.logs.filter((e) => e.event === "server_busy").length).toBeLessThanOrEqual(20);
    } finally {
      for (const s of holders) s.destroy();
      await h.close();
    }
    const summary = h.logs.filter((e) => e.event === "log_suppressed" && e.fields["suppressed_event"] === "server_busy");
    expect(summary.reduce((n, e) => n + Number(e.fields["count"]), 0)).toBe(300 - h.logs.filter((e) => e.event === "server_busy").length);
  });

  it("puts caller_pid, caller_exe, tool and tool_pgid on every record of a connection, and logs empty requests and shutdown", async () => {
    const h = await startHarness({ tools: { echo: { binary: "/bin/echo" } } });
    await h.run({ tool: "echo", args: ["x"], cwd: "/" });
    await h.run({ tool: "nope", args: [], cwd: "/" });
    expect((await rawExchange(h.daemon.socketPath, [])).toString()).toBe('{"error":"empty request"}');
    await h.close();
    const exe = realpathSync(process.execPath);
    const started = h.logs.find((e) => e.event === "tool_started");
    const finished = h.logs.find((e) => e.event === "tool_finished");
    expect(finished?.fields).toMatchObject({ tool: "echo", caller_pid: process.pid, caller_exe: exe, end: "done", exit_code: 0 });
    expect(typeof finished?.fields["tool_pgid"]).toBe("number");
    expect(started?.fields).toMatchObject({ tool: "echo", caller_pid: process.pid, caller_exe: exe, tool_pgid: finished?.fields["tool_pgid"] });
    const connectionEvents = h.logs.filter((e) => !["caller_allow_list_empty", "daemon_listening", "daemon_stopping", "daemon_stopped"].includes(e.event));
    expect(connectionEvents.map((e) => e.event)).toEqual(expect.arrayContaining(["tool_started", "tool_finished", "request_refused", "empty_request"]));
    for (const e of connectionEvents) {
      for (const key of ["caller_pid", "caller_exe", "tool", "tool_pgid"]) expect(Object.keys(e.fields), `${e.event} has ${key}`).toContain(key);
      expect(e.fields["pid"]).toBeUndefined();
    }
    expect(h.logs.map((e) => e.event)).toEqual(expect.arrayContaining(["daemon_stopping", "daemon_stopped"]));
  });
});

describe("an attacker who is the sandboxed agent cannot make a tool print its credential or send it elsewhere through the environment", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ tools: { env: { binary: "/usr/bin/env" } } });
  });
  afterAll(async () => h.close());

  it("drops GODEBUG, editor, browser and diff hand-offs of common credentialed tools, proxy names in any case, and gcloud, docker and AWS endpoint and profile names", async () => {
    // GODEBUG=http2debug=2 makes every Go program print each HTTP/2 header it sends, Authorization
    // included; GH_BROWSER, GH_EDITOR, GH_PAGER, KUBE_EDITOR and KUBECTL_EXTERNAL_DIFF are commands gh
    // and kubectl run with their credentials at hand; Python reads *_proxy names in any case.
    const names = ["GODEBUG", "GH_BROWSER", "GH_EDITOR", "GH_PAGER", "KUBE_EDITOR", "KUBECTL_EXTERNAL_DIFF", "Https_Proxy", "hTTP_pRoXy", "All_Proxy"];
    // gcloud takes every property as CLOUDSDK_<SECTION>_<NAME>; docker and the AWS CLI choose their
    // endpoint, context or profile (so which credential) by these names.
    names.push("CLOUDSDK_API_ENDPOINT_OVERRIDES_STORAGE", "CLOUDSDK_AUTH_DISABLE_SSL_VALIDATION", "DOCKER_CONTEXT", "DOCKER_TLS_VERIFY", "AWS_ENDPOINT_URL_S3", "AWS_PROFILE", "AWS_DEFAULT_PROFILE", "Npm_Config_userconfig");
    const r = await h.run({ tool: "env", args: [], cwd: "/", env: { HARMLESS: "yes", ...Object.fromEntries(names.map((n) => [n, "injected"])) } });
    expect(r.result).toMatchObject({ kind: "done", exitCode: 0 });
    const env = r.stdout.toString();
    // Control: a harmless name still passes, so the request's env reached the tool.
    expect(env).toContain("HARMLESS=yes\n");
    expect(env).not.toContain("injected");
    expect(String(h.logs.findLast((e) => e.event === "request_env_dropped")?.fields["names"]).split(",").sort()).toEqual([...names].sort());
  });
});

const KUBECTL = "/usr/bin/kubectl";

describe.skipIf(!existsSync(KUBECTL) || !existsSync("/usr/bin/openssl"))("an attacker who is the sandboxed agent cannot read a Go tool's bearer token through GODEBUG", () => {
  const TOKEN = "broker-held-token-5f1c2e";
  let dir: string;
  let server: Http2SecureServer;
  const seen: string[] = [];
  let h: Harness;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "provenant-broker-godebug-"));
    // A stand-in for the API server the operator's kubeconfig names, speaking HTTP/2 over TLS as real
    // ones do; it records the Authorization header it receives (the control that the token was sent).
    execFileSync("/usr/bin/openssl", ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", join(dir, "key.pem"), "-out", join(dir, "cert.pem"), "-days", "1", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"], { stdio: "ignore" });
    server = createSecureServer({ key: readFileSync(join(dir, "key.pem")), cert: readFileSync(join(dir, "cert.pem")) }, (req, res) => {
      seen.push(String(req.headers["authorization"]));
      res.writeHead(200, { "content-type": "application/json" });
      res.end('{"kind":"PodList","apiVersion":"v1","metadata":{},"items":[]}');
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const port = (server.address() as AddressInfo).port;
    const kubeconfig = join(dir, "kubeconfig");
    const ca = readFileSync(join(dir, "cert.pem")).toString("base64");
    writeFileSync(
      kubeconfig,
      `apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: "https://127.0.0.1:${port}", certificate-authority-data: "${ca}"}}]\n` +
        `users: [{name: u, user: {token: "${TOKEN}"}}]\ncontexts: [{name: x, context: {cluster: c, user: u}}]\ncurrent-context: x\n`,
      { mode: 0o600 },
    );
    // The operator's deployment: kubectl run by the daemon with a kubeconfig the sandbox cannot read.
    h = await startHarness({ tools: { kubectl: { binary: KUBECTL, forced_env: { KUBECONFIG: kubeconfig, KUBECACHEDIR: join(dir, "cache") }, timeout: "30s" } } });
  });
  afterAll(async () => {
    await h.close();
    await new Promise<void>((r) => server.close(() => r()));
    rmSync(dir, { recursive: true, force: true });
  });

  it("kubectl run with GODEBUG=http2debug=2 from the request sends the token but prints no header", async () => {
    const r = await h.run({ tool: "kubectl", args: ["get", "--raw", "/api/v1/pods"], cwd: "/", env: { GODEBUG: "http2debug=2" } });
    expect(r.result).toMatchObject({ kind: "done" });
    // The credentialed request happened: the server got the token.
    expect(seen).toContain(`Bearer ${TOKEN}`);
    // What came back to the sandbox does not hold it.
    expect((r.stdout.toString() + r.stderr.toString()).includes(TOKEN)).toBe(false);
  }, 40_000);
});

const GCLOUD = "/usr/bin/gcloud";

describe.skipIf(!existsSync(GCLOUD))("an attacker who is the sandboxed agent cannot send gcloud's bearer token to a server of its own", () => {
  const TOKEN = "ya29.broker-held-7d3a91";
  let dir: string;
  let api: Server;
  let proxy: Server;
  const atApi: string[] = [];
  const atProxy: string[] = [];
  let h: Harness;

  const recorder = (seen: string[]): Server =>
    createHttpServer((req, res) => {
      seen.push(String(req.headers["authorization"]));
      res.writeHead(200, { "content-type": "application/json" });
      res.end("{}");
    });

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "provenant-broker-gcloud-"));
    writeFileSync(join(dir, "token"), `${TOKEN}\n`, { mode: 0o600 });
    // The API the operator points gcloud at, and a "proxy" that only records what reaches it.
    api = recorder(atApi);
    proxy = recorder(atProxy);
    await Promise.all([api, proxy].map((s) => new Promise<void>((r) => s.listen(0, "127.0.0.1", r))));
    const apiPort = (api.address() as AddressInfo).port;
    h = await startHarness({
      tools: {
        gcloud: {
          binary: GCLOUD,
          timeout: "60s",
          forced_env: {
            CLOUDSDK_CONFIG: join(dir, "config"),
            CLOUDSDK_AUTH_ACCESS_TOKEN_FILE: join(dir, "token"),
            CLOUDSDK_CORE_DISABLE_PROMPTS: "1",
            CLOUDSDK_API_ENDPOINT_OVERRIDES_COMPUTE: `http://127.0.0.1:${apiPort}/compute/v1/`,
          },
        },
      },
    });
  });
  afterAll(async () => {
    await h.close();
    await Promise.all([api, proxy].map((s) => new Promise<void>((r) => s.close(() => r()))));
    rmSync(dir, { recursive: true, force: true });
  });

  it("gcloud properties from the request (CLOUDSDK_PROXY_*) are dropped: the token reaches the operator's API only", async () => {
    // Every gcloud property can be set as CLOUDSDK_<SECTION>_<NAME>: endpoints, proxies, CA files,
    // switching TLS validation off. Here the request names a proxy of its own.
    const proxyPort = (proxy.address() as AddressInfo).port;
    const env = { CLOUDSDK_PROXY_TYPE: "http", CLOUDSDK_PROXY_ADDRESS: "127.0.0.1", CLOUDSDK_PROXY_PORT: String(proxyPort) };
    const r = await h.run({ tool: "gcloud", args: ["compute", "instances", "list", "--project", "p"], cwd: "/", env });
    expect(r.result).toMatchObject({ kind: "done" });
    expect(atProxy).toEqual([]);
    // Control: the credentialed request was made, to the operator's API.
    expect(atApi).toContain(`Bearer ${TOKEN}`);
  }, 90_000);
});

const NPM = "/usr/bin/npm";

describe.skipIf(!existsSync(NPM))("an attacker who is the sandboxed agent cannot point npm at a config of its own by spelling npm_config_ in another case", () => {
  const TOKEN = "npm_broker-held-40e7c1";
  let dir: string;
  let registry: Server;
  let evil: Server;
  const atRegistry: string[] = [];
  const atEvil: string[] = [];
  let h: Harness;

  const recorder = (seen: string[]): Server =>
    createHttpServer((req, res) => {
      seen.push(String(req.headers["authorization"]));
      res.writeHead(404, { "content-type": "application/json" });
      res.end('{"error":"not found"}');
    });

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "provenant-broker-npm-"));
    registry = recorder(atRegistry);
    evil = recorder(atEvil);
    await Promise.all([registry, evil].map((s) => new Promise<void>((r) => s.listen(0, "127.0.0.1", r))));
    const port = (s: Server): number => (s.address() as AddressInfo).port;
    // The operator's npm: its own registry, whose token comes from the broker's credential.
    writeFileSync(join(dir, "operator.npmrc"), `registry=http://127.0.0.1:${port(registry)}/\n//127.0.0.1:${port(registry)}/:_authToken=\${NPM_TOKEN}\n`, { mode: 0o600 });
    // What the sandbox writes in its workspace: its own registry, and the token sent there.
    writeFileSync(join(dir, "sandbox.npmrc"), `registry=http://127.0.0.1:${port(evil)}/\n//127.0.0.1:${port(evil)}/:_authToken=\${NPM_TOKEN}\n`);
    process.env["PROVENANT_TEST_NPM_TOKEN"] = TOKEN;
    h = await startHarness({
      credentials: { npm: { source: "env:PROVENANT_TEST_NPM_TOKEN" } },
      tools: {
        npm: {
          binary: NPM,
          timeout: "60s",
          env: { NPM_TOKEN: "npm" },
          forced_env: {
            npm_config_userconfig: join(dir, "operator.npmrc"),
            npm_config_cache: join(dir, "cache"),
            npm_config_logs_dir: join(dir, "logs"),
            npm_config_update_notifier: "false",
          },
        },
      },
    });
  });
  afterAll(async () => {
    await h.close();
    await Promise.all([registry, evil].map((s) => new Promise<void>((r) => s.close(() => r()))));
    rmSync(dir, { recursive: true, force: true });
  });

  it("Npm_Config_userconfig from the request is dropped (npm reads the prefix in any case): the token goes to the operator's registry only", async () => {
    const r = await h.run({ tool: "npm", args: ["view", "left-pad", "version"], cwd: dir, env: { Npm_Config_userconfig: join(dir, "sandbox.npmrc") } });
    expect(r.result).toMatchObject({ kind: "done" });
    expect(atEvil).toEqual([]);
    // Control: the credentialed request was made, to the operator's registry.
    expect(atRegistry).toContain(`Bearer ${TOKEN}`);
  }, 90_000);
});

describe("an attacker who is the sandboxed agent cannot run a command of its own through the directory a tool runs in", () => {
  const TOKEN = "ghp_broker-held-5f1e";
  let dir: string;
  let sandboxRepo: string;
  let h: Harness;
  const leak = (): string => join(dir, "leaked-env");

  beforeAll(async () => {
    dir = realpathSync(mkdtempSync(join(tmpdir(), "provenant-broker-cwd-")));
    // The sandbox's own repository: git runs core.fsmonitor through the shell on `git status`.
    sandboxRepo = join(dir, "sandbox-repo");
    execFileSync("git", ["init", "-q", sandboxRepo]);
    execFileSync("git", ["-C", sandboxRepo, "config", "core.fsmonitor", `env > ${leak()}; false`]);
    const operatorDir = join(dir, "operator");
    execFileSync("mkdir", [operatorDir]);
    process.env["PROVENANT_TEST_GH_TOKEN"] = TOKEN;
    const git = {
      binary: "/usr/bin/git",
      env: { GH_TOKEN: "gh" },
      // Only `git status` is allowed: the argument rules cannot see what the repository's config runs.
      mode: "allowlist",
      allowed_args: [{ match: "argv", argv: ["status"] }],
      forced_env: { GIT_CEILING_DIRECTORIES: dir },
    };
    h = await startHarness({
      credentials: { gh: { source: "env:PROVENANT_TEST_GH_TOKEN" } },
      tools: { git, "git-pinned": { ...git, working_dir: operatorDir } },
    });
  });
  afterAll(async () => {
    await h.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("with working_dir the tool runs in the operator's directory, whatever cwd the request names: the sandbox's fsmonitor never runs", async () => {
    const r = await h.run({ tool: "git-pinned", args: ["status"], cwd: sandboxRepo });
    // Not a repository: git says so and runs nothing of the sandbox's.
    expect(r.result).toMatchObject({ kind: "done", exitCode: 128 });
    expect(r.stderr.toString()).toContain("not a git repository");
    expect(existsSync(leak())).toBe(false);
  });

  it("control: without working_dir the request's cwd is used and the sandbox's repository hands the token out (the documented limit)", async () => {
    const r = await h.run({ tool: "git", args: ["status"], cwd: sandboxRepo });
    expect(r.result).toMatchObject({ kind: "done" });
    expect(readFileSync(leak(), "utf8")).toContain(`GH_TOKEN=${TOKEN}`);
  });

  it("a working_dir that is not a directory refuses the call, naming nothing of it to the peer", async () => {
    const h2 = await startHarness({ tools: { echo: { binary: "/bin/echo", working_dir: join(dir, "missing") } } });
    try {
      const r = await h2.run({ tool: "echo", args: ["x"], cwd: "/" });
      expect(r.result).toMatchObject({ kind: "error", message: "invalid working directory" });
      expect(h2.logs.find((e) => e.event === "request_refused")?.fields["reason"]).toBe(`working_dir ${join(dir, "missing")} is not a directory`);
    } finally {
      await h2.close();
    }
  });

  it("the request's cwd must still be absolute (the protocol), though the tool does not run there", async () => {
    const r = await h.run({ tool: "git-pinned", args: ["status"], cwd: "relative/dir" });
    expect(r.result).toMatchObject({ kind: "error", message: "invalid working directory" });
  });
});
