import { spawn } from "node:child_process";
import { createHmac } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { type Server, type Socket, createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signedAdminLine, signedRequestLine } from "../../src/broker/broker-client.js";
import { readSecretFile } from "../../src/broker/secret-file.js";
import { type Harness, rawExchange, startHarness } from "./harness.js";

/**
 * Interop with claw-wrap as its protocol corpus describes it: the secret file, the golden frames and
 * the admin exchange of the reference wrapper, run through our daemon and through our wrapper. The
 * reference's side is played by code written here from the corpus alone (its own HMAC, its own frame
 * writer), sharing nothing with src/broker.
 */
interface Corpus {
  secret_file: { example: { file_text: string; hmac_key_hex: string } };
  golden_frames: Record<string, string>;
}
const corpus = JSON.parse(readFileSync(join(import.meta.dirname, "../../../shared/corpora/claw-wrap/protocol-v3.json"), "utf8")) as Corpus;
const example = corpus.secret_file.example;
/** The JSON part of a golden frame as the corpus spells it ("{...}  (comment)"). */
const golden = (name: string): string => (corpus.golden_frames[name] as string).replace(/\s+\(.*\)$/, "");

/** The built wrapper (npm test builds first), as `provenant-wrap` runs. */
const WRAP_MAIN = join(import.meta.dirname, "../../dist/broker/wrap-main.js");

// The reference's MAC, written from the corpus: fields joined by "\n"; these tests use only args and
// env for which JSON.stringify and Go's json.Marshal agree.
function referenceMac(key: Buffer, f: { timestamp: string; tool: string; args: string[] | null; cwd: string; env: Record<string, string> | null; nonce: string }): string {
  const env = f.env === null ? "{}" : `{${Object.keys(f.env).sort().map((k) => `${JSON.stringify(k)}:${JSON.stringify(f.env?.[k])}`).join(",")}}`;
  const message = [f.timestamp, f.tool, JSON.stringify(f.args), f.cwd, env, f.nonce].join("\n");
  return createHmac("sha256", key).update(message).digest("base64");
}

function referenceFrame(json: string): Buffer {
  const body = Buffer.from(json);
  const len = Buffer.alloc(4);
  len.writeUInt32BE(body.length);
  return Buffer.concat([len, body]);
}

describe("interop: the secret file as claw-wrap writes and reads it", () => {
  it("keys the MAC with the base64-decoded bytes of the corpus example", () => {
    const dir = mkdtempSync(join(tmpdir(), "provenant-interop-"));
    try {
      const file = join(dir, "auth");
      writeFileSync(file, example.file_text, { mode: 0o600 });
      expect(readSecretFile(file).toString("hex")).toBe(example.hmac_key_hex);
      writeFileSync(file, "not base64!\n", { mode: 0o600 });
      expect(() => readSecretFile(file)).toThrow(/failed to decode secret/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("the daemon writes 32 random bytes as padded base64 and a newline, 0600 in a 0700 directory, and keys with the decoded bytes", async () => {
    const base = mkdtempSync(join(tmpdir(), "provenant-interop-"));
    const h = await startHarness({ proxy: { hmac_secret_file: join(base, "run", "auth") }, tools: { echo: { binary: "/bin/echo" } } });
    try {
      const text = readFileSync(h.daemon.secretFile, "utf8");
      expect(text).toMatch(/^[A-Za-z0-9+/]{43}=\n$/);
      expect(statSync(h.daemon.secretFile).mode & 0o777).toBe(0o600);
      expect(statSync(dirname(h.daemon.secretFile)).mode & 0o777).toBe(0o700);
      const request = (key: Buffer, nonce: string): string => {
        const fields = { timestamp: String(Math.floor(Date.now() / 1000)), tool: "echo", args: ["interop"], cwd: "/", env: null, nonce };
        return `${JSON.stringify({ version: 3, ...fields, hmac: referenceMac(key, fields) })}\n`;
      };
      const decoded = Buffer.from(text.trim(), "base64");
      const ok = await rawExchange(h.daemon.socketPath, [request(decoded, "bm9uY2UtZGVjb2RlZA==")]);
      expect(ok.subarray(4, 4 + ok.readUInt32BE(0)).toString()).toBe(`{"type":"stdout","data":"${Buffer.from("interop\n").toString("base64")}"}`);
      const withText = await rawExchange(h.daemon.socketPath, [request(Buffer.from(text.trim()), "bm9uY2UtdGV4dA==")]);
      expect(withText).toEqual(referenceFrame(golden("error")));
    } finally {
      await h.close();
      rmSync(base, { recursive: true, force: true });
    }
  });
});

/** The JSON payloads of a framed reply, as the bytes were sent. */
function payloads(reply: Buffer): string[] {
  const out: string[] = [];
  for (let off = 0; off < reply.length; ) {
    const len = reply.readUInt32BE(off);
    out.push(reply.subarray(off + 4, off + 4 + len).toString());
    off += 4 + len;
  }
  return out;
}

describe("interop: our daemon against the corpus' golden frames and the reference wrapper's habits", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(
      {
        proxy: { read_header_timeout: "10s" },
        tools: { echo: { binary: "/bin/echo" }, sh: { binary: "/bin/sh" }, slow: { binary: "/bin/sh", timeout: "1s" } },
      },
      { killGraceMs: 500 },
    );
  });
  afterAll(async () => h.close());

  const exchange = async (tool: string, args: string[]): Promise<string[]> =>
    payloads(await rawExchange(h.daemon.socketPath, [signedRequestLine(h.secret, { tool, args, cwd: "/" })]));

  it("writes the golden frames byte for byte", async () => {
    expect(await exchange("echo", ["out"])).toEqual([golden("stdout"), golden("done exit 0")]);
    expect(await exchange("sh", ["-c", "exit 3"])).toEqual([golden("done exit 3")]);
    expect(await exchange("slow", ["-c", "sleep 10"])).toEqual([golden("timeout")]);
    const forged = signedRequestLine(Buffer.from("not the key"), { tool: "echo", args: [], cwd: "/" });
    expect(payloads(await rawExchange(h.daemon.socketPath, [forged]))).toEqual([golden("error")]);
  });

  it("answers an admin request sent with no newline while the client waits with its side open", async () => {
    const line = signedAdminLine(h.secret, "list").trimEnd();
    const reply = (await rawExchange(h.daemon.socketPath, [line], { end: false })).toString();
    expect(JSON.parse(reply)).toMatchObject({ tools: { echo: { binary: "/bin/echo", mode: "blocklist" } } });
  });

  it("takes a request the moment its JSON object is complete, newline or not, and then its stdin", async () => {
    const req = signedRequestLine(h.secret, { tool: "sh", args: ["-c", "cat"], cwd: "/" }).trimEnd();
    const stdin = `{"type":"stdin","data":"${Buffer.from("piped").toString("base64")}"}\n{"type":"stdin","eof":true}\n`;
    const reply = await rawExchange(h.daemon.socketPath, [req, stdin], { gapMs: 50 });
    expect(payloads(reply)).toEqual([`{"type":"stdout","data":"${Buffer.from("piped").toString("base64")}"}`, golden("done exit 0")]);
  });
});

/**
 * A stand-in for the reference daemon, written from the corpus: it checks the MAC with the example
 * secret's decoded key and answers each tool with golden frames.
 */
function referenceDaemon(socketPath: string, key: Buffer): Promise<Server> {
  const replies = new Map<string, string[]>([
    ["out3", [golden("stdout"), golden("done exit 3")]],
    ["ok", [golden("stdout"), golden("done exit 0")]],
    ["slow", [golden("timeout")]],
  ]);
  const server = createServer((socket: Socket) => {
    let text = "";
    let answered = false;
    socket.on("error", () => undefined);
    socket.on("data", (c: Buffer) => {
      if (answered) return;
      text += c.toString();
      const nl = text.indexOf("\n");
      if (nl < 0) return;
      answered = true;
      const req = JSON.parse(text.slice(0, nl)) as { tool: string; args: string[]; cwd: string; timestamp: string; nonce: string; env: Record<string, string>; hmac: string };
      const env = Object.keys(req.env ?? {}).length === 0 ? null : req.env;
      const expected = referenceMac(key, { timestamp: req.timestamp, tool: req.tool, args: req.args, cwd: req.cwd, env, nonce: req.nonce });
      const frames = expected !== req.hmac ? [golden("error")] : (replies.get(req.tool) ?? [golden("error")]);
      socket.end(Buffer.concat(frames.map(referenceFrame)));
    });
  });
  return new Promise((resolve) => server.listen(socketPath, () => resolve(server)));
}

describe("interop: our wrapper against a daemon keyed with the corpus' secret_file example", () => {
  let dir: string;
  let server: Server;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "provenant-interop-"));
    writeFileSync(join(dir, "auth"), example.file_text, { mode: 0o600 });
    server = await referenceDaemon(join(dir, "sock"), Buffer.from(example.hmac_key_hex, "hex"));
  });
  afterAll(async () => {
    await new Promise((r) => server.close(r));
    rmSync(dir, { recursive: true, force: true });
  });

  const wrap = (args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> =>
    new Promise((resolve, reject) => {
      const child = spawn(process.execPath, [WRAP_MAIN, ...args], {
        env: { ...process.env, PROVENANT_BROKER_SOCKET: join(dir, "sock"), PROVENANT_BROKER_SECRET_FILE: join(dir, "auth") },
        stdio: ["ignore", "pipe", "pipe"],
      });
      let stdout = "";
      let stderr = "";
      child.stdout.on("data", (c: Buffer) => (stdout += c.toString()));
      child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
      child.on("error", reject);
      child.on("close", (code) => resolve({ code, stdout, stderr }));
    });

  it("signs with the decoded key and turns each golden frame into the tool's output and exit status", async () => {
    expect(await wrap(["out3", "a"])).toEqual({ code: 3, stdout: "out\n", stderr: "" });
    expect(await wrap(["ok"])).toEqual({ code: 0, stdout: "out\n", stderr: "" });
    expect(await wrap(["slow"])).toMatchObject({ code: 124, stdout: "" });
    expect(await wrap(["unknown"])).toEqual({ code: 1, stdout: "", stderr: "provenant-wrap: authentication failed\n" });
  }, 60_000);
});
