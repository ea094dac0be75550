import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Command } from "commander";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type LedgerCommandIo, registerLedgerCommands } from "../../src/cli/ledger.js";
import { defaultLedgerPath } from "../../src/ledger/ledger-paths.js";
import { runCli } from "../cli/run-cli.js";

let root: string;
let workspace: string;
let configHome: string;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "provenant-ledger-cli-"));
  workspace = join(root, "ws");
  configHome = join(root, "config");
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

interface Run {
  code: number;
  out: string;
  err: string;
}

let terminal = false;

async function cli(...args: string[]): Promise<Run> {
  const result: Run = { code: 0, out: "", err: "" };
  const io: LedgerCommandIo = {
    cwd: workspace,
    env: { XDG_CONFIG_HOME: configHome },
    out: (t) => (result.out += t),
    err: (t) => (result.err += t),
    errIsTTY: terminal,
    setExitCode: (c) => (result.code = c),
  };
  const program = new Command().exitOverride();
  registerLedgerCommands(program, () => io);
  await program.parseAsync(["ledger", ...args], { from: "user" });
  return result;
}

async function appendMany(n: number): Promise<void> {
  for (let i = 0; i < n; i++) expect((await cli("append", "--workspace", workspace, "--type", "CLAIM", "--data", `{"i":${i}}`)).code).toBe(0);
}

describe("provenant ledger", () => {
  it("append, verify and show on the workspace's default ledger", async () => {
    const appended = await cli("append", "--workspace", workspace, "--type", "CLAIM", "--data", '{"text":"test claim"}');
    expect(appended.code).toBe(0);
    expect(JSON.parse(appended.out)).toMatchObject({ index: 1, chain: 0, seq: 1 });
    expect(statSync(defaultLedgerPath(workspace)).isFile()).toBe(true);
    const verified = await cli("verify", "--workspace", workspace);
    expect(verified).toMatchObject({ code: 0, out: expect.stringMatching(/^ok: 2 entries in 1 chain, head [0-9a-f]{64}\n$/) });
    const shown = await cli("show", "1", "--ledger", defaultLedgerPath(workspace));
    expect(JSON.parse(shown.out)).toMatchObject({ index: 1, seq: 1, type: "CLAIM", data: { text: "test claim" } });
  });

  it("draws a progress bar on a terminal, and not with --no-progress", async () => {
    await appendMany(3);
    terminal = true;
    try {
      const drawn = await cli("verify", "--workspace", workspace);
      expect(drawn.err).toMatch(/\rverifying \[#{25}\] 100% /);
      expect(drawn.err.endsWith("\r\x1b[K")).toBe(true);
      expect((await cli("verify", "--workspace", workspace, "--no-progress")).err).toBe("");
    } finally {
      terminal = false;
    }
  });

  it("fails with the reason and a non-zero status on corruption, a torn tail, bad input and missing entries", async () => {
    await appendMany(4);
    const path = defaultLedgerPath(workspace);
    const original = readFileSync(path, "utf8");
    writeFileSync(path, original.replace('{"i":2}', '{"i":9}'));
    const corrupt = await cli("verify", "--workspace", workspace);
    expect(corrupt.code).toBe(1);
    expect(corrupt.err).toMatch(/^provenant ledger verify: CORRUPT at chain 0 seq 3 \(log position 3, .* line 4\): hash mismatch/);
    writeFileSync(path, `${original}{"data":{"i"`);
    const torn = await cli("verify", "--workspace", workspace);
    expect(torn.code).toBe(1);
    expect(torn.err).toMatch(/ends in an interrupted append \(12 bytes after seq 4\); 5 complete entries verified/);
    expect(await cli("append", "--workspace", workspace, "--type", "GENESIS", "--data", "{}")).toMatchObject({ code: 2 });
    expect(await cli("append", "--workspace", workspace, "--type", "CLAIM", "--data", "{nope")).toMatchObject({ code: 2 });
    expect(await cli("show", "7", "--workspace", workspace)).toMatchObject({ code: 2, err: expect.stringMatching(/no entry at position 7: the log holds 5/) });
    expect(await cli("show", "-1", "--workspace", workspace)).toMatchObject({ code: 2 });
    expect(await cli("verify", "--ledger", join(root, "absent.jsonl"))).toMatchObject({ code: 2, err: expect.stringMatching(/no ledger at/) });
  });

  it("keygen, checkpoint, prove, consistency and check-proof work end to end, and catch truncation", async () => {
    expect((await cli("keygen")).code).toBe(0);
    const key = join(configHome, "provenant", "ledger-checkpoint.key");
    expect(statSync(key).mode & 0o777).toBe(0o600);
    await appendMany(9);
    const cp = await cli("checkpoint", "--workspace", workspace);
    expect(cp.code).toBe(0);
    expect(cp.out).toMatch(/^provenant\.local\/ledger\n10\n[A-Za-z0-9+/]{43}=\n\n\u2014 provenant\.local\/ledger \S+\n$/);
    const cpFile = join(workspace, ".provenance", "checkpoints", "10.checkpoint");
    expect(readFileSync(cpFile, "utf8")).toBe(cp.out);

    const proofFile = join(root, "inclusion.json");
    expect((await cli("prove", "4", "--workspace", workspace, "--checkpoint", cpFile, "--out", proofFile)).code).toBe(0);
    const checked = await cli("check-proof", proofFile, "--pubkey", `${key}.pub`);
    expect(checked).toMatchObject({ code: 0, out: expect.stringMatching(/^ok: entry 4 .* size 10 .* vouched for by a signed checkpoint/) });
    const proof = JSON.parse(readFileSync(proofFile, "utf8")) as { entry: { data: { i: number } } };
    proof.entry.data.i = 99;
    writeFileSync(proofFile, JSON.stringify(proof));
    expect(await cli("check-proof", proofFile)).toMatchObject({ code: 1, err: expect.stringMatching(/entry hash does not match/) });

    await appendMany(5);
    const consistencyFile = join(root, "consistency.json");
    expect((await cli("consistency", "10", "15", "--workspace", workspace, "--checkpoint", cpFile, "--out", consistencyFile)).code).toBe(0);
    expect(await cli("check-proof", consistencyFile, "--pubkey", `${key}.pub`)).toMatchObject({ code: 0 });
    expect(await cli("verify", "--workspace", workspace, "--from-checkpoint", cpFile)).toMatchObject({
      code: 0,
      out: expect.stringMatching(/consistent with the checkpoint at size 10/),
    });

    const path = defaultLedgerPath(workspace);
    writeFileSync(path, readFileSync(path, "utf8").split("\n").slice(0, 8).join("\n") + "\n");
    expect(await cli("verify", "--workspace", workspace)).toMatchObject({ code: 0 });
    expect(await cli("verify", "--workspace", workspace, "--from-checkpoint", cpFile)).toMatchObject({
      code: 1,
      err: expect.stringMatching(/truncated: the checkpoint covers 10 entries, the ledger now holds 8/),
    });
  });

  it("refuses a signing key others can read or one inside the workspace", async () => {
    await appendMany(1);
    const loose = join(root, "loose.key");
    expect((await cli("keygen", "--key", loose)).code).toBe(0);
    const { chmodSync } = await import("node:fs");
    chmodSync(loose, 0o644);
    expect(await cli("checkpoint", "--workspace", workspace, "--key", loose)).toMatchObject({ code: 2, err: expect.stringMatching(/chmod 600/) });
    const inside = join(workspace, "ledger.key");
    expect((await cli("keygen", "--key", inside)).code).toBe(0);
    expect(await cli("checkpoint", "--workspace", workspace, "--key", inside)).toMatchObject({
      code: 2,
      err: expect.stringMatching(/inside the workspace/),
    });
  });

  it("exits non-zero as a real process when verification fails", () => {
    const path = join(root, "l.jsonl");
    writeFileSync(path, '{"data":{},"hash":"00","prevHash":"00","seq":0,"type":"GENESIS"}\n');
    const run = runCli(["ledger", "verify", "--ledger", path]);
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/CORRUPT at chain 0 seq 0 .*unreadable entry: prevHash is not 64 hex digits/);
  });
});
