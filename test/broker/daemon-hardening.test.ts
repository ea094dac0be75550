import { realpathSync } from "node:fs";
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
