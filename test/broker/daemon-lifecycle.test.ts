import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { stringify } from "yaml";
import { describe, expect, it } from "vitest";
import { signedRequestLine, startCall } from "../../src/broker/broker-client.js";
import { ConfigError, parseBrokerConfig } from "../../src/broker/broker-config.js";
import { FrameError } from "../../src/broker/frame.js";
import { rawExchange, startHarness } from "./harness.js";

const until = async (cond: () => boolean, ms = 20_000): Promise<void> => {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 20));
  }
};
// A zombie (state Z) has finished: only its parent's wait is missing.
const alive = (pid: number): boolean => {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return false;
  }
};

describe("daemon lifecycle", () => {
  it("sweeps config dirs left by a daemon that is gone, and keeps a live one's", async () => {
    const root = mkdtempSync(join(tmpdir(), "provenant-sweep-"));
    const tmp = join(root, "tmp");
    mkdirSync(tmp, { mode: 0o700 });
    const stale = join(tmp, "cfg-4194999-abc");
    const live = join(tmp, `cfg-${process.ppid}-def`);
    mkdirSync(stale);
    mkdirSync(live);
    const h = await startHarness({ proxy: { temp_dir: tmp }, tools: {} });
    try {
      expect(existsSync(stale)).toBe(false);
      expect(existsSync(live)).toBe(true);
      expect(h.logs.some((e) => e.event === "stale_config_dirs_removed" && e.fields["count"] === 1)).toBe(true);
    } finally {
      await h.close();
      rmSync(root, { recursive: true, force: true });
    }
  });

  it("ends a connection at max_connection_lifetime and kills its tool", async () => {
    const h = await startHarness({ proxy: { max_connection_lifetime: "1500ms" }, tools: { sh: { binary: "/bin/sh" } } });
    try {
      const pidFile = join(h.dir, "pid");
      const call = startCall(h.daemon.socketPath, signedRequestLine(h.secret, { tool: "sh", args: ["-c", `echo $$ > ${pidFile}; sleep 300`], cwd: "/" }));
      await until(() => existsSync(pidFile));
      const pid = Number(readFileSync(pidFile, "utf8"));
      expect(await call.result).toEqual({ kind: "raw", text: "" });
      await until(() => !alive(pid));
      expect(h.logs.some((e) => e.event === "connection_lifetime_exceeded")).toBe(true);
    } finally {
      await h.close();
    }
  });

  it("closes the tool's stdin when a started message does not finish within read_message_timeout", async () => {
    const h = await startHarness({ proxy: { read_message_timeout: "300ms" }, tools: { cat: { binary: "/bin/cat" } } });
    try {
      const req = signedRequestLine(h.secret, { tool: "cat", args: [], cwd: "/" });
      const reply = await rawExchange(h.daemon.socketPath, [req, '{"type":"stdin","da'], { end: false });
      expect(reply.subarray(4).toString()).toBe('{"type":"done"}');
      expect(h.logs.some((e) => e.event === "client_message_timeout")).toBe(true);
    } finally {
      await h.close();
    }
  });

  it("removes its socket on close and refuses to start over a non-socket file", async () => {
    const h = await startHarness({ tools: {} });
    const path = h.daemon.socketPath;
    await h.daemon.close();
    expect(existsSync(path)).toBe(false);
    const dir = mkdtempSync(join(tmpdir(), "provenant-sockpath-"));
    const file = join(dir, "not-a-socket");
    (await import("node:fs")).writeFileSync(file, "x");
    await expect(startHarness({ proxy: { socket: file }, tools: {} })).rejects.toThrow(/not a socket/);
    rmSync(dir, { recursive: true, force: true });
  });
});

describe("client against a hostile daemon", () => {
  for (const [name, bytes] of [
    ["a zero-length frame", Buffer.from([0, 0, 0, 0])],
    ["a frame over 16 MiB", Buffer.from([1, 0, 0, 1])],
  ] as const) {
    it(`rejects ${name}`, async () => {
      const dir = mkdtempSync(join(tmpdir(), "provenant-hostile-"));
      const path = join(dir, "s.sock");
      const server = createServer((s) => s.end(bytes));
      await new Promise<void>((r) => server.listen(path, r));
      try {
        await expect(startCall(path, "{}\n").result).rejects.toThrow(FrameError);
      } finally {
        server.close();
        rmSync(dir, { recursive: true, force: true });
      }
    });
  }
});

describe("config parser under arbitrary input", () => {
  it("either accepts or throws ConfigError, never anything else", () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.constantFrom("proxy", "tools", "credentials", "security"), (value, key) => {
        for (const text of [stringify(value), stringify({ [key]: value }), stringify({ tools: { t: value } })]) {
          try {
            parseBrokerConfig(text);
          } catch (error) {
            expect(error).toBeInstanceOf(ConfigError);
          }
        }
      }),
      { numRuns: 500 },
    );
  });
});
