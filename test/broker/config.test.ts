import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type GoPattern, PatternError, checkArgs, compileGoPattern } from "../../src/broker/arg-rules.js";
import { ConfigError, parseBrokerConfig } from "../../src/broker/broker-config.js";
import { parseByteSize } from "../../src/broker/byte-size.js";
import { parseGoDuration } from "../../src/broker/go-duration.js";
import { MIN_REPLAY_TTL_MS, ReplayCache } from "../../src/broker/replay-cache.js";

describe("wrappers.yaml", () => {
  const reference = `
proxy:
  timeout: 300s
  inline_threshold: 1MB
  hmac_secret_file: /run/openclaw/auth
  max_connections: 64
  read_header_timeout: 3s
  read_message_timeout: 15s
  max_stdin_message_size: 1MB
  replay_cache_ttl: 2m
  replay_cache_max_entries: 10000
  write_timeout: 30s
  max_output_size: 100MB
  max_connection_lifetime: 30m
  pass_binary: /usr/bin/pass
security:
  deny_unverified_caller_exe: false
credentials:
  github-token:
    source: pass:cli/github/token
tools:
  gh:
    binary: /usr/bin/gh
    timeout: 600s
    env:
      GH_TOKEN: github-token
    forced_env:
      GH_PROMPT_DISABLED: "1"
    blocked_args:
      - pattern: "repo\\\\s+delete"
        match: command
        message: "Repository deletion is blocked"
`;
  it("accepts the reference's documented shape", () => {
    const c = parseBrokerConfig(reference);
    expect(c.proxy.timeoutMs).toBe(300_000);
    expect(c.proxy.maxOutputSize).toBe(100 * 1024 * 1024);
    expect(c.proxy.maxConnectionLifetimeMs).toBe(1_800_000);
    expect(c.proxy.replayCacheTtlMs).toBe(120_000);
    expect(c.proxy.socketPath).toBe("/run/openclaw/secrets.sock");
    expect(c.proxy.allowedUid).toBe(process.getuid?.());
    const gh = c.tools.get("gh");
    expect(gh?.timeoutMs).toBe(600_000);
    expect(gh?.env).toEqual({ GH_TOKEN: "github-token" });
    expect(checkArgs(["repo", "delete", "x"], "blocklist", gh?.blockedArgs ?? [], [])).toEqual({ allowed: false, message: "Repository deletion is blocked" });
  });

  it("names the key and the problem for bad input", () => {
    const bad: [string, RegExp][] = [
      ["proxy:\n  timeout: soon\n", /proxy\.timeout: not a duration/],
      ["proxy:\n  max_output_size: lots\n", /proxy\.max_output_size: not a size/],
      ["proxy:\n  redact: true\n", /redact/],
      ["tools:\n  gh:\n    binary: gh\n", /tools\.gh\.binary: must be an absolute path/],
      ["tools:\n  gh:\n    binary: /x\n    redact_output: []\n", /redact_output/],
      ["tools:\n  gh:\n    binary: /x\n    env:\n      T: nope\n", /tools\.gh\.env\.T: unknown credential "nope"/],
      ["credentials:\n  a:\n    source: op://vault/x\n", /credentials\.a\.source: "op" is not a supported source/],
      ["tools:\n  ../x:\n    binary: /x\n", /tool names must match/],
      ["tools:\n  gh:\n    binary: /x\n    blocked_args:\n      - pattern: '('\n", /blocked_args\[0\]: pattern "\("/],
      ["tools:\n  gh:\n    binary: /x\n    blocked_args:\n      - match: argv\n        argv: [a]\n", /only supported in allowed_args/],
      ["tools:\n  gh:\n    binary: /x\n    allowed_args:\n      - pattern: a\n", /requires mode: allowlist/],
      ["tools:\n  gh:\n    binary: /x\n    mode: allowlist\n", /at least one allowed_args/],
      ["tools:\n  gh:\n    binary: /x\n    mode: allowlist\n    allowed_args:\n      - match: argv\n        argv: ['a)|(.*']\n", /allowed_args\[0\]: pattern "a\)/],
      ["credentials:\n  c:\n    source: env:X\ntools:\n  t:\n    binary: /x\n    config_file:\n      xdg_subdir: ../up\n      filename: f\n      template: ''\n      credentials: [c]\n", /xdg_subdir/],
      ["credentials:\n  c:\n    source: env:X\ntools:\n  t:\n    binary: /x\n    config_file:\n      xdg_subdir: a\n      filename: f\n      template: '{{ .other }}'\n      credentials: [c]\n", /placeholder \{\{ \.other \}\}/],
      ["proxy: [\n", /not valid YAML/],
    ];
    for (const [text, message] of bad) expect(() => parseBrokerConfig(text), text).toThrow(message);
    expect(() => parseBrokerConfig("proxy:\n  timeout: soon\n")).toThrow(ConfigError);
  });

  it("flags override the socket and secret file", () => {
    const c = parseBrokerConfig("proxy:\n  socket: /a.sock\n", { socketPath: "/b.sock", secretFile: "/s" });
    expect(c.proxy.socketPath).toBe("/b.sock");
    expect(c.proxy.secretFile).toBe("/s");
  });
});

describe("units", () => {
  it("parses Go durations and sizes", () => {
    expect(parseGoDuration("1h30m")).toBe(5_400_000);
    expect(parseGoDuration("1.5s")).toBe(1500);
    expect(parseGoDuration("250ms")).toBe(250);
    expect(parseGoDuration("0")).toBe(0);
    for (const bad of ["", "5", "-1s", "1x", "s"]) expect(parseGoDuration(bad)).toBeUndefined();
    expect(parseByteSize("512KB")).toBe(524_288);
    expect(parseByteSize("2gb")).toBe(2 * 1024 ** 3);
    expect(parseByteSize(100)).toBe(100);
    for (const bad of ["", "1TB", "-1MB", "MB"]) expect(parseByteSize(bad)).toBeUndefined();
  });
  it("never throws on arbitrary text", () => {
    fc.assert(
      fc.property(fc.string(), (s) => {
        parseGoDuration(s);
        parseByteSize(s);
      }),
    );
  });
});

describe("argument rules", () => {
  it("translates Go inline flags and anchors argv patterns", () => {
    expect(compileGoPattern("(?i)DELETE").test("delete")).toBe(true);
    expect(compileGoPattern("(?P<v>x)").test("x")).toBe(true);
    const anchored = compileGoPattern("list", true);
    expect(anchored.test("list")).toBe(true);
    expect(anchored.test("list\nrm")).toBe(false);
    expect(anchored.test("xlist")).toBe(false);
    expect(() => compileGoPattern("a)|(.*", true)).toThrow();
  });

  it("compiles or refuses with PatternError, and an anchored pattern never matches more than its whole argument", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 20 }), fc.string({ maxLength: 20 }), (source, arg) => {
        let anchored: GoPattern;
        try {
          anchored = compileGoPattern(source, true);
        } catch (error) {
          expect(error).toBeInstanceOf(PatternError);
          return;
        }
        if (anchored.test(arg)) expect(compileGoPattern(source).test(arg)).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });
});

describe("replay cache", () => {
  const mac = (n: number): Buffer => Buffer.alloc(32, n);
  it("keys on MAC bytes and UID, with a TTL floor, and refuses when full rather than forget", () => {
    const c = new ReplayCache(1, 2);
    expect(c.ttl).toBe(MIN_REPLAY_TTL_MS);
    expect(c.admit(mac(1), 1000, 0)).toBe("fresh");
    expect(c.admit(mac(1), 1000, 5)).toBe("replayed");
    expect(c.admit(mac(1), 1001, 5)).toBe("fresh");
    expect(c.admit(mac(2), 1000, 6)).toBe("full");
    expect(c.admit(mac(1), 1000, MIN_REPLAY_TTL_MS + 1)).toBe("fresh");
  });
});
