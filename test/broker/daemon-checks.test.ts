import { chmodSync, existsSync, rmSync, writeFileSync } from "node:fs";
import { spawn } from "node:child_process";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { signedAdminLine, signedRequestLine } from "../../src/broker/broker-client.js";
import { signRequestMac } from "../../src/broker/request-mac.js";
import { type Harness, framesOf, rawExchange, runCall, startHarness } from "./harness.js";
import { tempDir } from "../temp-dirs.js";

const now = (): number => Math.floor(Date.now() / 1000);

describe("broker daemon: every check refuses its bad case", () => {
  let h: Harness;
  let marker: string;
  beforeAll(async () => {
    h = await startHarness({
      proxy: { max_connections: 3, read_header_timeout: "1s" },
      tools: {
        echo: { binary: "/bin/echo" },
        touch: { binary: "/usr/bin/touch" },
        missing: { binary: "/nonexistent/tool" },
        notexec: { binary: "/etc/hostname" },
        gh: {
          binary: "/bin/echo",
          blocked_args: [
            { pattern: "^delete$", message: "deletion is blocked" },
            { pattern: "repo\\s+archive", match: "command", message: "archiving is blocked" },
          ],
        },
        ro: {
          binary: "/bin/echo",
          mode: "allowlist",
          allowed_args: [
            { pattern: "^(issue|pr)\\s+(list|view)\\b", match: "command", message: "read-only commands only" },
            { match: "argv", argv: ["version"] },
          ],
        },
      },
    });
    marker = join(h.dir, "ran");
  });
  afterAll(async () => h.close());

  const line = (over: Record<string, unknown> = {}, sign: Record<string, unknown> = {}): string => {
    const base = { version: 3, tool: "echo", args: ["hi"], cwd: "/", timestamp: String(now()), nonce: "00112233445566778899aabbccddeeff", env: {} as Record<string, string> };
    const signed = { ...base, ...sign } as typeof base;
    const hmac = signRequestMac(h.secret, { ...signed, args: signed.args, env: signed.env });
    return `${JSON.stringify({ ...base, hmac, ...over })}\n`;
  };
  const framedError = async (l: string): Promise<unknown> => (await runCall(h.daemon.socketPath, l)).result;
  const authFailed = { kind: "error", message: "authentication failed" };

  it("accepts a correct request", async () => {
    expect((await runCall(h.daemon.socketPath, line())).stdout.toString()).toBe("hi\n");
  });

  it("refuses a tampered field of every kind", async () => {
    expect(await framedError(line({ tool: "touch" }))).toEqual(authFailed);
    expect(await framedError(line({ args: ["hi", "x"] }))).toEqual(authFailed);
    expect(await framedError(line({ args: null }))).toEqual(authFailed);
    expect(await framedError(line({ cwd: "/tmp" }))).toEqual(authFailed);
    expect(await framedError(line({ env: { A: "1" } }))).toEqual(authFailed);
    expect(await framedError(line({ nonce: "ffffffffffffffffffffffffffffffff" }))).toEqual(authFailed);
    expect(await framedError(line({ timestamp: String(now() - 1) }))).toEqual(authFailed);
    expect(await framedError(line({ hmac: "not base64" }))).toEqual(authFailed);
    expect(await framedError(line({ hmac: "" }))).toEqual(authFailed);
  });

  it("refuses stale, future and malformed timestamps even when correctly signed", async () => {
    const ts = (t: string): string => line({}, { timestamp: t, nonce: `n${t}` }).replace(/"timestamp":"\d+"/, `"timestamp":"${t}"`).replace(/"nonce":"[0-9a-f]+"/, `"nonce":"n${t}"`);
    expect(await framedError(ts(String(now() - 7)))).toEqual(authFailed);
    expect(await framedError(ts(String(now() + 7)))).toEqual(authFailed);
    expect(await framedError(ts("1e3"))).toEqual(authFailed);
    // Spellings of a fresh time that a number parser reads but Go's ParseInt does not: refused for
    // their form alone, though the time they name is now and the MAC is over them.
    for (const spelled of [`${now()}.0`, ` ${now()}`, `${now()}\u0020`]) {
      expect(await framedError(ts(spelled))).toEqual(authFailed);
      expect(h.logs.findLast((e) => e.event === "request_refused")?.fields["reason"]).toBe("malformed timestamp");
    }
    expect((await runCall(h.daemon.socketPath, ts(String(now() - 3)))).result).toMatchObject({ kind: "done", exitCode: 0 });
    const stale = signedRequestLine(h.secret, { tool: "echo", args: [], cwd: "/" }, { timestamp: now() - 6, nonce: "stale-nonce" });
    expect(await framedError(stale)).toEqual(authFailed);
    const future = signedRequestLine(h.secret, { tool: "echo", args: [], cwd: "/" }, { timestamp: now() + 6 });
    expect(await framedError(future)).toEqual(authFailed);
  });

  it("refuses a replay, including one through a re-encoded MAC", async () => {
    const l = signedRequestLine(h.secret, { tool: "touch", args: [marker], cwd: "/" });
    expect((await runCall(h.daemon.socketPath, l)).result).toMatchObject({ kind: "done", exitCode: 0 });
    expect(existsSync(marker)).toBe(true);
    expect(await framedError(l)).toEqual(authFailed);
    const o = JSON.parse(l) as { hmac: string };
    for (const respelled of [`${o.hmac.slice(0, 10)}\n${o.hmac.slice(10)}`, `${o.hmac.slice(0, 10)}\r\n${o.hmac.slice(10)}`, o.hmac.slice(0, -1)]) {
      expect(await framedError(`${JSON.stringify({ ...o, hmac: respelled })}\n`)).toEqual(authFailed);
    }
    expect(h.logs.filter((e) => e.event === "request_refused" && e.fields["reason"] === "replayed request").length).toBeGreaterThan(0);
  });

  it("refuses a wrong protocol version before anything else about the request", async () => {
    expect(await framedError(line({ version: 2 }))).toEqual({ kind: "error", message: "protocol version mismatch" });
  });

  it("answers raw JSON for what fails before the protocol is established", async () => {
    const raw = async (pieces: (string | Buffer)[], end = true): Promise<string> => (await rawExchange(h.daemon.socketPath, pieces, { end })).toString();
    expect(await raw(["{oops\n"])).toBe('{"error":"invalid json"}');
    expect(await raw(['{"version":3,"tool":"echo"}\n'])).toBe('{"error":"invalid request: use proxy protocol"}');
    expect(await raw([])).toBe('{"error":"empty request"}');
    expect(await raw([`{"pad":"${"x".repeat(3 * 1024 * 1024)}"}\n`])).toBe('{"error":"request too large"}');
    expect(await raw(['{"version":3'], false)).toBe('{"error":"request read timeout"}');
  });

  it("refuses unknown tools, blocked and not-allowed arguments, and bad working directories", async () => {
    const call = (tool: string, args: string[], cwd = "/"): Promise<unknown> => h.run({ tool, args, cwd }).then((r) => r.result);
    expect(await call("nope", [])).toEqual({ kind: "error", message: "unknown tool" });
    expect(await call("gh", ["repo", "delete"])).toEqual({ kind: "error", message: "blocked: deletion is blocked" });
    expect(await call("gh", ["repo", "deleted"])).toMatchObject({ kind: "done" });
    expect(await call("gh", ["repo", "archive", "x"])).toEqual({ kind: "error", message: "blocked: archiving is blocked" });
    expect(await call("ro", ["issue", "list"])).toMatchObject({ kind: "done" });
    expect(await call("ro", ["version"])).toMatchObject({ kind: "done" });
    expect(await call("ro", ["version", "--evil"])).toEqual({ kind: "error", message: "blocked: read-only commands only" });
    expect(await call("ro", ["issue", "close", "1"])).toEqual({ kind: "error", message: "blocked: read-only commands only" });
    expect(await call("echo", [], "relative/dir")).toEqual({ kind: "error", message: "invalid working directory" });
    expect(await call("echo", [], "/no/such/dir")).toEqual({ kind: "error", message: "invalid working directory" });
    expect(await call("echo", [], "/etc/hostname")).toEqual({ kind: "error", message: "invalid working directory" });
    expect(await call("missing", [])).toEqual({ kind: "error", message: "failed to start tool" });
    expect(await call("notexec", [])).toEqual({ kind: "error", message: "failed to start tool" });
    expect(await call("echo", ["nul\u0000byte"])).toEqual({ kind: "error", message: "failed to start tool" });
  });

  it("answers admin list as raw JSON and refuses check from an unlisted caller", async () => {
    const list = (await rawExchange(h.daemon.socketPath, [signedAdminLine(h.secret, "list")])).toString();
    const parsed = JSON.parse(list) as { tools: Record<string, { binary: string; mode: string }>; version: string };
    expect(parsed.tools["ro"]).toEqual({ binary: "/bin/echo", mode: "allowlist" });
    // By name, as the reference daemon lists them, not in the configuration's order.
    expect(Object.keys(parsed.tools)).toEqual(["echo", "gh", "missing", "notexec", "ro", "touch"]);
    expect(typeof parsed.version).toBe("string");
    expect((await rawExchange(h.daemon.socketPath, [signedAdminLine(h.secret, "check")])).toString()).toBe('{"error":"unauthorized caller"}');
    expect((await rawExchange(h.daemon.socketPath, [signedAdminLine(h.secret, "rm")])).toString()).toBe('{"error":"unknown admin command"}');
    const forged = signedAdminLine(Buffer.from("wrong"), "list");
    expect((await rawExchange(h.daemon.socketPath, [forged])).toString()).toBe('{"error":"authentication failed"}');
  });

  it("turns connections over max_connections away with server busy", async () => {
    const { createConnection } = await import("node:net");
    const idle = [0, 1, 2].map(() => createConnection(h.daemon.socketPath));
    await Promise.all(idle.map((s) => new Promise((r) => s.once("connect", r))));
    // The client's connect can come before the daemon's accept: wait until the daemon holds all three.
    await vi.waitFor(() => expect(h.daemon.activeConnections).toBe(3), { timeout: 10_000, interval: 5 });
    expect((await rawExchange(h.daemon.socketPath, [line()])).toString()).toBe('{"error":"server busy"}');
    for (const s of idle) s.destroy();
    await vi.waitFor(() => expect(h.daemon.activeConnections).toBe(0), { timeout: 10_000, interval: 5 });
    expect((await runCall(h.daemon.socketPath, line({}, { nonce: "after-flood" }).replace(/"nonce":"[0-9a-f]+"/, '"nonce":"after-flood"'))).result).toMatchObject({ kind: "done" });
  });

  it("handles a request line and stdin arriving in one read, and a newline in a later read", async () => {
    const h2 = h;
    const req = signedRequestLine(h2.secret, { tool: "echo", args: ["one-read"], cwd: "/" });
    const reply = await rawExchange(h2.daemon.socketPath, [`${req}{"type":"stdin","data":"aGk="}\n{"type":"stdin","eof":true}\n`]);
    expect(framesOf(reply)).toEqual([{ type: "stdout", data: Buffer.from("one-read\n").toString("base64") }, { type: "done" }]);
  });
});

describe("broker daemon: peer UID", () => {
  it("refuses a peer whose UID is not the allowed one", async () => {
    const h = await startHarness({ proxy: { allowed_uid: 4242 }, tools: { echo: { binary: "/bin/echo" } } });
    try {
      expect((await h.run({ tool: "echo", args: [], cwd: "/" })).result).toEqual({ kind: "raw", text: '{"error":"unauthorized caller"}' });
      expect(h.logs.some((e) => e.fields["reason"] === `peer uid ${process.getuid?.()}`)).toBe(true);
    } finally {
      await h.close();
    }
  });

  it.runIf(process.getuid?.() === 0)("refuses a process really running as another user (SO_PEERCRED)", async () => {
    const h = await startHarness({ tools: { echo: { binary: "/bin/echo" } } });
    try {
      chmodSync(h.dir, 0o755);
      chmodSync(h.daemon.socketPath, 0o666);
      const l = signedRequestLine(h.secret, { tool: "echo", args: ["x"], cwd: "/" });
      const client = `const s=require("net").createConnection(${JSON.stringify(h.daemon.socketPath)});const b=[];s.on("data",c=>b.push(c));s.on("close",()=>process.stdout.write(Buffer.concat(b).toString()));s.write(${JSON.stringify(l)});`;
      const child = spawn(process.execPath, ["-e", client], { uid: 65534, gid: 65534 });
      let out = "";
      child.stdout.on("data", (c: Buffer) => (out += c.toString()));
      await new Promise((r) => child.on("close", r));
      expect(out).toBe('{"error":"unauthorized caller"}');
      expect(h.logs.some((e) => e.fields["reason"] === "peer uid 65534")).toBe(true);
    } finally {
      await h.close();
    }
  });
});

describe("broker daemon: caller executable allow-list", () => {
  it("refuses a caller whose executable is not listed", async () => {
    const h = await startHarness({ proxy: { allowed_callers: ["/bin/true"] }, tools: { echo: { binary: "/bin/echo" } } });
    try {
      expect((await h.run({ tool: "echo", args: [], cwd: "/" })).result).toEqual({ kind: "raw", text: '{"error":"unauthorized caller"}' });
    } finally {
      await h.close();
    }
  });

  it("refuses to list an interpreter, which would admit any script", async () => {
    await expect(startHarness({ proxy: { allowed_callers: [process.execPath] }, tools: {} })).rejects.toThrow(/interpreter/);
    await expect(startHarness({ proxy: { allowed_callers: ["/bin/sh"] }, tools: {} })).rejects.toThrow(/interpreter/);
  });
});

describe("secret file", () => {
  it("refuses to provision through a symlink, and the wrapper refuses to read through one", async () => {
    const { symlinkSync, readFileSync, statSync } = await import("node:fs");
    const { provisionSecret, readSecretFile } = await import("../../src/broker/secret-file.js");
    const d = tempDir("provenant-secret-");
    const target = join(d, "target");
    writeFileSync(target, "old");
    symlinkSync(target, join(d, "auth"));
    expect(() => provisionSecret(join(d, "auth"))).toThrow(/symlink/);
    expect(readFileSync(target, "utf8")).toBe("old");
    expect(() => readSecretFile(join(d, "auth"))).toThrow(/symlink/);
    const key = provisionSecret(join(d, "real"));
    expect(statSync(join(d, "real")).mode & 0o777).toBe(0o600);
    expect(key).toHaveLength(32);
    expect(readFileSync(join(d, "real"), "utf8")).toBe(`${key.toString("base64")}\n`);
    expect(readSecretFile(join(d, "real")).equals(key)).toBe(true);
  });
});

describe("an attacker who replays a request at the far edge of its freshness window cannot run it twice", () => {
  it("with the shortest replay memory (10 s), the copy sent 10.5 s after the original is refused", async () => {
    // A request stamped T is fresh while the daemon's whole-second clock is within T-5..T+5, which
    // is 11 s of wall time ((T-5).000 to (T+5).999): the replay memory must cover all of it.
    const T = 1_800_000_000;
    let clock = (T - 5) * 1000;
    const h = await startHarness({ proxy: { replay_cache_ttl: "10s" }, tools: { touch: { binary: "/usr/bin/touch" } } }, { now: () => clock });
    try {
      const marker = join(h.dir, "ran");
      const line = signedRequestLine(h.secret, { tool: "touch", args: [marker], cwd: "/" }, { timestamp: T, nonce: "edge-of-window" });
      // Control: the original runs (the file appears).
      expect((await runCall(h.daemon.socketPath, line)).result).toMatchObject({ kind: "done", exitCode: 0 });
      expect(existsSync(marker)).toBe(true);
      rmSync(marker);
      clock = (T + 5) * 1000 + 500;
      const replay = await runCall(h.daemon.socketPath, line);
      expect(replay.result).toEqual({ kind: "error", message: "authentication failed" });
      expect(existsSync(marker)).toBe(false);
      expect(h.logs.findLast((e) => e.event === "request_refused")?.fields["reason"]).toBe("replayed request");
    } finally {
      await h.close();
    }
  });

  it("with the replay memory full of live requests, a new request is refused, not admitted unremembered", async () => {
    const T = 1_800_000_000;
    let clock = T * 1000;
    const h = await startHarness({ proxy: { replay_cache_ttl: "10s", replay_cache_max_entries: 1 }, tools: { touch: { binary: "/usr/bin/touch" } } }, { now: () => clock });
    try {
      const first = join(h.dir, "first");
      const second = join(h.dir, "second");
      const call = (path: string) => runCall(h.daemon.socketPath, signedRequestLine(h.secret, { tool: "touch", args: [path], cwd: "/" }, { timestamp: Math.floor(clock / 1000) }));
      expect((await call(first)).result).toMatchObject({ kind: "done", exitCode: 0 });
      expect((await call(second)).result).toEqual({ kind: "error", message: "authentication failed" });
      expect(existsSync(second)).toBe(false);
      expect(h.logs.findLast((e) => e.event === "request_refused")?.fields["reason"]).toBe("replay cache full");
      // Once the first request's memory has expired, there is room again.
      clock += 11_000;
      expect((await call(second)).result).toMatchObject({ kind: "done", exitCode: 0 });
      expect(existsSync(second)).toBe(true);
    } finally {
      await h.close();
    }
  });
});
