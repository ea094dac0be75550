import { execFileSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { parse as parseYaml } from "yaml";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { renderTemplate, yamlQuote } from "../../src/broker/config-template.js";
import { CredentialError, fetchCredential } from "../../src/broker/credential-source.js";
import { type Harness, startHarness } from "./harness.js";
import { tempDir } from "../temp-dirs.js";

const PASS = ["/usr/bin/pass", "/usr/local/bin/pass"].find((p) => existsSync(p));

describe("YAML quoting of credential values in config_file templates", () => {
  it("parses back to exactly the value and never adds structure", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme", maxLength: 60 }), (value) => {
        const doc = parseYaml(renderTemplate("key: {{ .cred }}\nafter: fixed\n", new Map([["cred", value]]))) as Record<string, unknown>;
        expect(Object.keys(doc)).toEqual(["key", "after"]);
        expect(doc["key"]).toBe(value);
        expect(doc["after"]).toBe("fixed");
      }),
      { numRuns: 3000 },
    );
  });

  it("neutralises classic injection attempts", () => {
    for (const v of ["x\nadmin: true", "'; admin: true; '", '" \nadmin: true #', "{a: b}", "[1, 2]", "&anchor *alias", "--- \n...", "!!python/object:os.system", "\u0085x\u2028y", "\t tab", ": colon", "- dash"]) {
      const doc = parseYaml(renderTemplate("k: {{.c}}\n", new Map([["c", v]]))) as Record<string, unknown>;
      expect(doc).toEqual({ k: v });
    }
    expect(yamlQuote("it's")).toBe("'it''s'");
  });

  it("treats a dash and an underscore in placeholder names alike", () => {
    expect(renderTemplate("a: {{ .my_key }}\nb: {{.my-key}}", new Map([["my-key", "v"]]))).toBe("a: 'v'\nb: 'v'");
  });
});

describe("credential sources", () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "provenant-cred-"));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const ctx = (extra: Record<string, string> = {}) => ({ passBinary: PASS ?? "/usr/bin/pass", processEnv: { ...process.env, ...extra } });

  it("reads env: from the daemon's environment or from a configured env file", async () => {
    expect(await fetchCredential("env:TOKEN_X", ctx({ TOKEN_X: "v1" }))).toBe("v1");
    await expect(fetchCredential("env:MISSING_X", ctx())).rejects.toThrow(CredentialError);
    const envFile = join(dir, "env");
    writeFileSync(envFile, "A=1\nTOKEN_X=from-file\n", { mode: 0o600 });
    expect(await fetchCredential("env:TOKEN_X", { ...ctx({ TOKEN_X: "v1" }), envFile })).toBe("from-file");
  });

  it("reads file: only from a private regular file, never through a symlink", async () => {
    const f = join(dir, "secret");
    writeFileSync(f, "s3cret\n", { mode: 0o600 });
    expect(await fetchCredential(`file:${f}`, ctx())).toBe("s3cret");
    symlinkSync(f, join(dir, "link"));
    await expect(fetchCredential(`file:${join(dir, "link")}`, ctx())).rejects.toThrow(/symlink/);
    chmodSync(f, 0o644);
    await expect(fetchCredential(`file:${f}`, ctx())).rejects.toThrow(/too open/);
    await expect(fetchCredential("file:relative", ctx())).rejects.toThrow(/absolute/);
    const empty = join(dir, "empty");
    writeFileSync(empty, "\n", { mode: 0o600 });
    await expect(fetchCredential(`file:${empty}`, ctx())).rejects.toThrow(/empty/);
  });

  it.runIf(PASS !== undefined)("reads pass: through the real pass program with a throwaway GnuPG key", async () => {
    const gnupg = join(dir, "gnupg");
    const store = join(dir, "store");
    mkdirSync(gnupg, { mode: 0o700 });
    const env = { ...process.env, GNUPGHOME: gnupg, PASSWORD_STORE_DIR: store };
    execFileSync("gpg", ["--batch", "--pinentry-mode", "loopback", "--passphrase", "", "--quick-gen-key", "provenant test <test@example.invalid>", "default", "default", "never"], { env, stdio: "ignore" });
    const fpr = /fpr:+([0-9A-F]{40}):/.exec(execFileSync("gpg", ["--with-colons", "--list-keys"], { env, encoding: "utf8" }))?.[1] as string;
    execFileSync(PASS as string, ["init", fpr], { env, stdio: "ignore" });
    execFileSync(PASS as string, ["insert", "-m", "cli/token"], { env, input: "pass-secret-value\n", stdio: ["pipe", "ignore", "ignore"] });
    expect(await fetchCredential("pass:cli/token", { passBinary: PASS as string, processEnv: env })).toBe("pass-secret-value");
    await expect(fetchCredential("pass:cli/missing", { passBinary: PASS as string, processEnv: env })).rejects.toThrow(/pass: lookup failed/);
    await expect(fetchCredential("pass:../etc", { passBinary: PASS as string, processEnv: env })).rejects.toThrow(/invalid entry/);
    await expect(fetchCredential("pass:--help", { passBinary: PASS as string, processEnv: env })).rejects.toThrow(/invalid entry/);

    // And end to end: a tool run by the daemon sees the pass value, the client never does.
    const saved = { GNUPGHOME: process.env["GNUPGHOME"], PASSWORD_STORE_DIR: process.env["PASSWORD_STORE_DIR"] };
    process.env["GNUPGHOME"] = gnupg;
    process.env["PASSWORD_STORE_DIR"] = store;
    const h = await startHarness({
      proxy: { pass_binary: PASS },
      credentials: { tok: { source: "pass:cli/token" } },
      tools: { show: { binary: "/bin/sh", env: { GH_TOKEN: "tok" } } },
    });
    try {
      const r = await h.run({ tool: "show", args: ["-c", 'test "$GH_TOKEN" = pass-secret-value && echo match'], cwd: "/" });
      expect(r.stdout.toString()).toBe("match\n");
    } finally {
      await h.close();
      for (const [k, v] of Object.entries(saved)) if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }, 60_000);
});

describe("config_file tools", () => {
  let h: Harness;
  let credFile: string;
  const nasty = "x'\nadmin: true\n\"dq\" #c {a: b}";
  beforeAll(async () => {
    const d = tempDir("provenant-cfgcred-");
    credFile = join(d, "bridge");
    writeFileSync(credFile, nasty, { mode: 0o600 });
    h = await startHarness({
      credentials: { "bridge-key": { source: `file:${credFile}` }, "plain": { source: "env:PROVENANT_PLAIN" } },
      tools: {
        hue: {
          binary: "/bin/sh",
          config_file: { xdg_subdir: "openhue", filename: "config.yaml", template: "bridge: {{ .bridge-key }}\nkey: {{ .plain }}\n", credentials: ["bridge-key", "plain"] },
        },
      },
    });
  });
  afterAll(async () => h.close());

  it("renders a private config with escaped values, points XDG_CONFIG_HOME at it, and removes it afterwards", async () => {
    process.env["PROVENANT_PLAIN"] = "plain-value";
    const script = 'f="$XDG_CONFIG_HOME/openhue/config.yaml"; stat -c %a "$XDG_CONFIG_HOME" "$f" | tr "\\n" " "; echo; echo "$XDG_CONFIG_HOME"; cat "$f"';
    const r = await h.run({ tool: "hue", args: ["-c", script], cwd: "/", env: { XDG_CONFIG_HOME: "/tmp/attacker" } });
    const [modes, home, ...rest] = r.stdout.toString().split("\n");
    expect(modes?.trim()).toBe("700 600");
    expect(home).not.toBe("/tmp/attacker");
    expect(parseYaml(rest.join("\n"))).toEqual({ bridge: nasty, key: "plain-value" });
    expect(existsSync(home as string)).toBe(false);
  });

  it("refuses with a generic error when a credential cannot be read, and logs why", async () => {
    delete process.env["PROVENANT_PLAIN"];
    const r = await h.run({ tool: "hue", args: ["-c", "true"], cwd: "/" });
    expect(r.result).toEqual({ kind: "error", message: "internal error" });
    expect(h.logs.some((e) => e.event === "request_refused" && String(e.fields["reason"]).includes("env: variable not set"))).toBe(true);
  });
});
