import { spawn } from "node:child_process";
import { createHmac } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { type Server, type Socket, createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
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

const WRAP_MAIN = join(import.meta.dirname, "../../src/broker/wrap-main.ts");

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
