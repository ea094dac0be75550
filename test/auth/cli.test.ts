import { spawnSync } from "node:child_process";
import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLI_MAIN } from "../cli/run-cli.js";

let dir: string;
let key: string;

function cli(args: string[], input = ""): { code: number | null; out: string; err: string } {
  const r = spawnSync(process.execPath, [CLI_MAIN, "auth", ...args], { cwd: dir, encoding: "utf8", input });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "provenant-authcli-"));
  key = join(dir, "auth.keys");
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// Each case runs the built CLI several times over: seconds each on a loaded CI host.
describe("provenant auth", { timeout: 90_000 }, () => {
  it("keygen creates a 0600 key file and refuses to overwrite it", () => {
    const r = cli(["keygen", "--out", key]);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/current key k[0-9a-f]{8}/);
    expect(statSync(key).mode & 0o777).toBe(0o600);
    const again = cli(["keygen", "--out", key]);
    expect(again.code).toBe(1);
    expect(again.err).toMatch(/exists; use --rotate/);
  });

  it("sign then verify round-trips; another session, a tampered byte or a stale clock fails", () => {
    const signed = cli(["sign", "--key", key, "--session", "s1", "--scope", "read,send", "--time", "2026-01-01T00:00:00Z", "send", "the", "report"]);
    expect(signed.code).toBe(0);
    const envelope = signed.out.trim();
    expect(envelope).toMatch(/^\[MSG_AUTH:v1\.k[0-9a-f]{8}\.human\.1767225600\.[A-Za-z0-9_-]+\.read,send\.[0-9a-f]{64}\] send the report \[\/MSG_AUTH\]$/);

    const ok = cli(["verify", "--key", key, "--session", "s1", "--now", "2026-01-01T00:01:00Z"], envelope + "\n");
    expect(ok.code).toBe(0);
    expect(JSON.parse(ok.out)).toMatchObject({ ok: true, text: "send the report", scope: "read,send", source: "human" });

    const wrong = cli(["verify", "--key", key, "--session", "s2", "--now", "2026-01-01T00:01:00Z"], envelope);
    expect(wrong.code).toBe(1);
    expect(JSON.parse(wrong.out)).toMatchObject({ ok: false, check: "bad-mac" });
    expect(wrong.err).toMatch(/bad-mac/);

    const tampered = cli(["verify", "--key", key, "--session", "s1", "--now", "2026-01-01T00:01:00Z"], envelope.replace("report", "rep0rt"));
    expect(JSON.parse(tampered.out)).toMatchObject({ ok: false, check: "bad-mac" });

    const stale = cli(["verify", "--key", key, "--session", "s1", "--now", "2026-01-01T00:10:00Z"], envelope);
    expect(JSON.parse(stale.out)).toMatchObject({ ok: false, check: "stale" });
    const wide = cli(["verify", "--key", key, "--session", "s1", "--now", "2026-01-01T00:10:00Z", "--max-age", "900"], envelope);
    expect(wide.code).toBe(0);
  });

  it("infers the scope when none is given, and reads the message from stdin", () => {
    const signed = cli(["sign", "--key", key, "--session", "s1"], "please run the build");
    expect(signed.out).toContain(".read,exec.");
  });

  it("rotation keeps old envelopes verifying until the key is retired", () => {
    const before = cli(["sign", "--key", key, "--session", "s1", "--time", "2026-01-01T00:00:00Z", "hi"]).out.trim();
    const oldId = /v1\.(k[0-9a-f]{8})\./.exec(before)?.[1] as string;
    expect(cli(["keygen", "--out", key, "--rotate"]).code).toBe(0);
    expect(statSync(key).mode & 0o777).toBe(0o600);
    const v = (text: string) => cli(["verify", "--key", key, "--session", "s1", "--now", "2026-01-01T00:00:10Z"], text);
    expect(v(before).code).toBe(0);
    expect(cli(["keygen", "--out", key, "--retire", oldId]).code).toBe(0);
    expect(JSON.parse(v(before).out)).toMatchObject({ ok: false, check: "unknown-key" });
  });

  it("refuses a key file others can read, and bad flags, with a precise message", () => {
    chmodSync(key, 0o640);
    const r = cli(["sign", "--key", key, "--session", "s1", "x"]);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/mode 0640; it must be 0600/);
    chmodSync(key, 0o600);
    expect(cli(["sign", "--key", key, "--session", "s1", "--scope", "read,fly", "x"]).err).toMatch(/"fly" is not an action class/);
    expect(cli(["sign", "--key", key, "--session", "s1", "--source", "owner", "x"]).err).toMatch(/--source/);
    expect(cli(["verify", "--key", key, "--session", "s1", "--now", "yesterday"], "x").err).toMatch(/--now/);
    expect(cli(["sign", "--key", join(dir, "missing"), "--session", "s1", "x"]).err).toMatch(/ENOENT/);
  });

  it("never prints the key", () => {
    const file = JSON.parse(readFileSync(key, "utf8")) as { keys: { secret: string }[] };
    const outputs = [cli(["sign", "--key", key, "--session", "s1", "x"]), cli(["verify", "--key", key, "--session", "s1"], "junk")];
    for (const o of outputs) for (const k of file.keys) expect(o.out + o.err).not.toContain(k.secret);
  });
});
