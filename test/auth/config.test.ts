import { describe, expect, it } from "vitest";
import { authConfigSchema, authModeFor, parseAuthConfig } from "../../src/auth/config.js";

describe("auth config", () => {
  it("defaults follow RFC-001", () => {
    const c = parseAuthConfig(undefined);
    expect(c).toMatchObject({
      mode: "off",
      freshnessSeconds: 300,
      futureSkewSeconds: 30,
      peers: [],
      agentEscalation: "approval",
      toolResultMac: "report",
      sources: { human: ["read", "write", "send", "exec", "trade"], agent: ["read"], system: { default: ["read"], jobs: {} } },
    });
  });

  it("bad values name the key", () => {
    const bad: [unknown, string][] = [
      [{ mode: "on" }, "mode"],
      [{ freshnessSeconds: 0 }, "freshnessSeconds"],
      [{ peers: ["roy"] }, "peers.0"],
      [{ sources: { agent: ["fly"] } }, "sources.agent.0"],
      [{ lexicon: { words: { read: ["look"] } } }, "lexicon.words"],
      [{ keyfile: "/x" }, ""],
    ];
    for (const [input, path] of bad) {
      const r = authConfigSchema.safeParse(input);
      expect(r.success).toBe(false);
      if (!r.success) expect(r.error.issues.map((i) => i.path.join("."))).toContain(path);
    }
  });

  it("per-agent modes", () => {
    const c = parseAuthConfig({ mode: "warn", agents: { roy: "enforce" } });
    expect(authModeFor(c, "roy")).toBe("enforce");
    expect(authModeFor(c, "eva")).toBe("warn");
    expect(authModeFor(c, null)).toBe("warn");
  });
});
