import { describe, expect, it } from "vitest";
import { MCP_SERVERS, serverName, unwrapServers, wrapServers } from "../../../src/adapters/mcp/client-config.js";

const PROVENANT = ["/usr/bin/node", "/opt/provenant/dist/cli/main.js"];

describe("MCP client configuration rewriting", () => {
  it("wraps stdio servers only, once, and unwraps them back to the original entries", () => {
    const original = {
      mcpServers: {
        fs: { command: "npx", args: ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"], env: { A: "1" } },
        bare: { command: "my-server" },
        remote: { type: "http", url: "https://example.com/mcp" },
        other: { command: "docker", args: ["mcp", "--name", "x", "--", "y"] },
      },
      keep: 1,
    };
    // A key only JSON.parse makes an own property: it must stay a server, not become a prototype.
    const doc = JSON.parse(JSON.stringify(original).replace('"other":', '"__proto__":{"command":"evil"},"other":')) as unknown;
    const wrapped = wrapServers(doc, { provenant: PROVENANT });
    expect(wrapped.changed).toEqual(["fs", "bare", "__proto__", "other"]);
    expect(wrapped.skipped.map((s) => s.name)).toEqual(["remote"]);
    expect((wrapped.document.mcpServers as Record<string, { args: string[] }>).fs?.args).toEqual([PROVENANT[1], "mcp", "--name", "fs", "--", "npx", "-y", "@modelcontextprotocol/server-filesystem", "/tmp"]);
    // Idempotent.
    expect(wrapServers(wrapped.document, { provenant: PROVENANT }).changed).toEqual([]);
    // From the backup: exactly the original entries (bare keeps having no args).
    const back = unwrapServers(wrapped.document, doc);
    expect(JSON.stringify(back.document)).toBe(JSON.stringify(doc));
    // Without the backup: the command and args after `--`.
    const guessed = unwrapServers(wrapped.document, undefined).document.mcpServers as Record<string, unknown>;
    expect(guessed.fs).toEqual({ command: "npx", args: ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"], env: { A: "1" } });
    expect(Object.getPrototypeOf(guessed)).toBeNull();
  });

  it("rewrites OpenClaw's mcp.servers, leaving the rest of its configuration and its remote servers alone", () => {
    const original = {
      agents: { defaults: { workspace: "/w" } },
      mcp: {
        sessionIdleTtlMs: 60_000,
        servers: {
          notes: { command: "uvx", args: ["mcp-server-notes"], enabled: false, toolFilter: { exclude: ["admin_*"] } },
          remote: { url: "https://example.com/mcp", transport: "streamable-http" },
        },
      },
    };
    const wrapped = wrapServers(original, { provenant: PROVENANT }, ["mcp", "servers"]);
    expect(wrapped.changed).toEqual(["notes"]);
    expect(wrapped.skipped.map((s) => s.name)).toEqual(["remote"]);
    const doc = wrapped.document as typeof original;
    expect(doc.agents).toEqual(original.agents);
    expect(doc.mcp.sessionIdleTtlMs).toBe(60_000);
    expect(doc.mcp.servers.notes).toEqual({ command: PROVENANT[0], args: [PROVENANT[1], "mcp", "--name", "notes", "--", "uvx", "mcp-server-notes"], enabled: false, toolFilter: { exclude: ["admin_*"] } });
    expect(doc.mcp.servers.remote).toEqual(original.mcp.servers.remote);
    expect(Object.hasOwn(doc, "mcpServers")).toBe(false);
    expect(JSON.stringify(unwrapServers(doc, original, ["mcp", "servers"]).document)).toBe(JSON.stringify(original));
    // No servers yet: nothing to wrap, and nothing else added.
    expect(wrapServers({ agents: {} }, { provenant: PROVENANT }, ["mcp", "servers"]).changed).toEqual([]);
    expect(() => wrapServers({ mcp: [] }, { provenant: PROVENANT }, ["mcp", "servers"])).toThrow(/^mcp is not an object/);
    expect(() => wrapServers({ mcp: { servers: "x" } }, { provenant: PROVENANT }, ["mcp", "servers"])).toThrow(/mcp\.servers is not an object/);
  });

  it("names the OpenClaw configuration whose plugin decides the calls (--decided-by-openclaw), and unwraps that entry back too", () => {
    const original = { mcp: { servers: { notes: { command: "uvx", args: ["mcp-server-notes"] } } } };
    const wrapped = wrapServers(original, { provenant: PROVENANT, decidedByOpenClaw: "/home/me/.openclaw/openclaw.json" }, ["mcp", "servers"]);
    const doc = wrapped.document as typeof original;
    expect(doc.mcp.servers.notes.args).toEqual([PROVENANT[1], "mcp", "--name", "notes", "--decided-by-openclaw", "/home/me/.openclaw/openclaw.json", "--", "uvx", "mcp-server-notes"]);
    expect(wrapServers(doc, { provenant: PROVENANT }, ["mcp", "servers"]).changed).toEqual([]);
    expect(unwrapServers(doc, undefined, ["mcp", "servers"]).document).toEqual(original);
  });

  it("wraps a remote server that carries its headers as provenant mcp --url, the headers in its environment; one that may sign in itself, or speaks SSE, stays", () => {
    const original = {
      mcpServers: {
        github: { type: "http", url: "https://api.example.com/mcp/", headers: { Authorization: "Bearer ${GITHUB_TOKEN}" } },
        oauth: { type: "http", url: "https://mcp.example.com/mcp" },
        legacy: { type: "sse", url: "https://old.example.com/sse", headers: { "X-Key": "k" } },
        legacyByPath: { url: "https://old.example.com/v1/sse?x=1", headers: { "X-Key": "k" } },
        odd: { url: "https://x.example.com/mcp", headers: { "X-Key": null } },
        signsIn: { url: "https://x.example.com/mcp", headers: { "X-Team": "1" }, auth: "oauth" },
        pinnedCert: { url: "https://x.example.com/mcp", headers: { "X-Team": "1" }, clientCert: "/c.pem", clientKey: "/k.pem" },
        openclaw: { url: "https://oc.example.com/mcp", transport: "streamable-http", headers: { "X-Count": 3, "X-On": true }, requestTimeoutMs: 5000 },
      },
    };
    const wrapped = wrapServers(original, { provenant: PROVENANT, workspace: "/ws" });
    expect(wrapped.changed).toEqual(["github", "openclaw"]);
    expect(Object.fromEntries(wrapped.skipped.map((s) => [s.name, s.why]))).toEqual({
      oauth: "a remote server with no headers: the client may sign in to it itself (OAuth), which the proxy cannot do for it; if it needs no sign-in, run it as provenant mcp --name oauth --url <its url>",
      legacy: "a remote server on the older SSE transport: the proxy speaks Streamable HTTP only",
      legacyByPath: "a remote server on the older SSE transport: the proxy speaks Streamable HTTP only",
      odd: "its headers are not all strings",
      signsIn: "a remote server the client signs in to (OAuth), which the proxy cannot do for it",
      pinnedCert: "a remote server with connection settings the proxy does not take (clientCert, clientKey)",
    });
    // Its own settings stay; headers OpenClaw sends as text are text.
    expect((wrapped.document.mcpServers as Record<string, unknown>).openclaw).toEqual({
      requestTimeoutMs: 5000,
      command: PROVENANT[0],
      args: [PROVENANT[1], "mcp", "--name", "openclaw", "--workspace", "/ws", "--url", "https://oc.example.com/mcp"],
      env: { PROVENANT_MCP_HEADERS: '{"X-Count":"3","X-On":"true"}' },
    });
    const servers = wrapped.document.mcpServers as Record<string, unknown>;
    // The headers (with the client's own ${VAR} expansion) move to the environment, off the command line.
    expect(servers.github).toEqual({
      command: PROVENANT[0],
      args: [PROVENANT[1], "mcp", "--name", "github", "--workspace", "/ws", "--url", "https://api.example.com/mcp/"],
      env: { PROVENANT_MCP_HEADERS: '{"Authorization":"Bearer ${GITHUB_TOKEN}"}' },
    });
    expect(wrapServers(wrapped.document, { provenant: PROVENANT }).changed).toEqual([]);
    // Back from the backup exactly; without it, rebuilt with the client's mark of the transport.
    expect(JSON.stringify(unwrapServers(wrapped.document, original).document)).toBe(JSON.stringify(original));
    const rebuilt = unwrapServers(wrapped.document, undefined, MCP_SERVERS, { key: "type", value: "http" });
    expect(rebuilt.changed).toEqual(["github", "openclaw"]);
    expect((rebuilt.document.mcpServers as Record<string, unknown>).github).toEqual(original.mcpServers.github);
    expect((unwrapServers(wrapped.document, undefined).document.mcpServers as Record<string, unknown>).github).toEqual({ url: "https://api.example.com/mcp/", headers: { Authorization: "Bearer ${GITHUB_TOKEN}" } });
    // Other environment entries stay; a header variable that is not JSON is dropped, not guessed.
    const withEnv = { mcpServers: { r: { command: PROVENANT[0], args: [PROVENANT[1], "mcp", "--name", "r", "--url", "https://r.example.com/mcp"], env: { A: "1", PROVENANT_MCP_HEADERS: "{bad" } } } };
    expect((unwrapServers(withEnv, undefined).document.mcpServers as Record<string, unknown>).r).toEqual({ url: "https://r.example.com/mcp", env: { A: "1" } });
  });

  it("tells which entries are stdio servers, and which are already provenant's", () => {
    const servers = {
      empty: {},
      noCommand: { command: "" },
      sse: { command: "x", type: "sse" },
      list: ["x"],
      nothing: null,
      mixed: { command: "x", args: ["a", 1] },
      typed: { command: "x", type: "stdio" },
      byName: { command: "/usr/local/bin/provenant", args: ["mcp", "--name", "a", "--", "y"] },
      byExe: { command: "C:\\tools\\provenant.exe", args: ["mcp", "--name", "a", "--", "y"] },
      byMain: { command: "node", args: ["/opt/p/dist/cli/main.js", "mcp", "--name", "a", "--", "y"] },
      lookalike: { command: "/bin/xprovenant", args: ["mcp", "--name", "a", "--", "y"] },
      otherMain: { command: "node", args: ["/opt/p/main.js", "mcp", "--name", "a", "--", "y"] },
      noSeparator: { command: "provenant", args: ["mcp", "--name", "a", "y"] },
      noName: { command: "provenant", args: ["mcp", "a", "--", "y"] },
      urlWithoutValue: { command: "provenant", args: ["mcp", "--name", "a", "--url"] },
      both: { command: "x", url: "https://x.example.com/mcp" },
    };
    const wrapped = wrapServers({ mcpServers: servers }, { provenant: PROVENANT, config: "/c.json" });
    const why = Object.fromEntries(wrapped.skipped.map((s) => [s.name, s.why]));
    const notStdio = "not a stdio server (no command, or a url/type other than stdio)";
    expect(why).toEqual({ empty: notStdio, noCommand: notStdio, sse: notStdio, list: notStdio, nothing: notStdio, both: notStdio, mixed: "its args are not all strings", byName: "already runs through provenant", byExe: "already runs through provenant", byMain: "already runs through provenant" });
    expect(wrapped.changed).toEqual(["typed", "lookalike", "otherMain", "noSeparator", "noName", "urlWithoutValue"]);
    expect((wrapped.document.mcpServers as Record<string, { args: string[] }>).typed?.args).toEqual([PROVENANT[1], "mcp", "--name", "typed", "--config", "/c.json", "--", "x"]);
    // Unwrapped: only what is provenant's, whose server follows "--" or "--url".
    const back = unwrapServers({ mcpServers: servers }, undefined);
    expect(back.changed).toEqual(["byName", "byExe", "byMain"]);
  });

  it("restores an entry from the backup only when it is the one wrapped, and makes server names of hostile keys", () => {
    const wrapped = { mcpServers: { a: { command: PROVENANT[0], args: [PROVENANT[1], "mcp", "--name", "a", "--", "srv", "--new"] }, r: { command: PROVENANT[0], args: [PROVENANT[1], "mcp", "--name", "r", "--url", "https://new.example.com/mcp"], env: { PROVENANT_MCP_HEADERS: '{"K":"v"}' } } } };
    // The backup's entries are not what was wrapped (another argument, another URL): rebuilt from the wrapped ones.
    const backup = { mcpServers: { a: { command: "srv", args: ["--old"] }, r: { url: "https://old.example.com/mcp", headers: { K: "old" } } } };
    expect(unwrapServers(wrapped, backup).document.mcpServers).toEqual({ a: { command: "srv", args: ["--new"] }, r: { url: "https://new.example.com/mcp", headers: { K: "v" } } });
    const same = { mcpServers: { a: { command: "srv", args: ["--new"], note: 1 }, r: { url: "https://new.example.com/mcp", headers: { K: "v" }, note: 2 } } };
    expect(unwrapServers(wrapped, same).document.mcpServers).toEqual(same.mcpServers);
    // A backup entry with no args is what was wrapped only when nothing followed the command.
    const bare = { mcpServers: { a: { command: PROVENANT[0], args: [PROVENANT[1], "mcp", "--name", "a", "--", "srv"] } } };
    expect(unwrapServers(bare, { mcpServers: { a: { command: "srv", note: 1 } } }).document.mcpServers).toEqual({ a: { command: "srv", note: 1 } });
    expect(unwrapServers(wrapped, { mcpServers: { a: { command: "srv", note: 1 } } }).document.mcpServers).toMatchObject({ a: { command: "srv", args: ["--new"] } });
    expect(serverName("-a-")).toBe("a");
    expect(serverName("--x--y--")).toBe("x--y");
    expect(serverName("ok-name")).toBe("ok-name");
  });

  it("tells a remote entry's transport, sign-in and settings apart", () => {
    const entry = (more: Record<string, unknown>) => ({ url: "https://x.example.com/mcp", headers: { K: "v" }, ...more });
    const why = (more: Record<string, unknown>) => wrapServers({ mcpServers: { s: more } }, { provenant: PROVENANT }).skipped[0]?.why;
    expect(why(entry({ transport: "sse" }))).toMatch(/older SSE transport/);
    expect(why(entry({ url: "https://x.example.com/sse/" }))).toMatch(/older SSE transport/);
    expect(why(entry({ url: "https://x.example.com/ssex" }))).toBeUndefined();
    expect(why(entry({ auth: "oauth" }))).toMatch(/signs in to \(OAuth\)/);
    // A URL the proxy would refuse as it starts is refused now, with its reason; one the client fills in is left to the proxy.
    expect(why(entry({ url: "http://mcp.example.com/mcp" }))).toBe("a URL the proxy would refuse (--url: plain http is for a server on this machine only (localhost, 127.0.0.1, [::1]), not mcp.example.com; use https)");
    expect(why(entry({ url: "https://user:pw@mcp.example.com/mcp" }))).toMatch(/^a URL the proxy would refuse \(--url holds a user or password/);
    expect(why(entry({ url: "https://${MCP_HOST}/mcp" }))).toBeUndefined();
    // Plain http is for this machine only, and a host the client fills in may be this machine.
    expect(why(entry({ url: "http://${MCP_HOST}/mcp" }))).toBeUndefined();
    expect(why(entry({ oauth: {} }))).toMatch(/signs in to \(OAuth\)/);
    expect(why(entry({ sslVerify: false }))).toBe("a remote server with connection settings the proxy does not take (sslVerify)");
    expect(why(entry({ headers: {} }))).toMatch(/with no headers/);
    expect(why(entry({ headers: "K: v" }))).toMatch(/with no headers/);
    // Settings for a process a remote server does not have would shape the proxy's: not wrapped.
    expect(why(entry({ env: { NODE_OPTIONS: "--require /tmp/x.js" } }))).toBe("a remote server with settings for a process (env), which it does not have; the proxy it would become must not take them");
    expect(why(entry({ envFile: ".env", cwd: "/tmp" }))).toMatch(/settings for a process \(envFile, cwd\)/);
    expect(why(entry({ workingDirectory: "/tmp" }))).toMatch(/settings for a process \(workingDirectory\)/);
    expect(why(entry({ headersHelper: "./headers.sh" }))).toBe("a remote server whose headers a command makes each time (headersHelper), which the proxy does not run");
    expect(why({ url: "" })).toBe("not a stdio server (no command, or a url/type other than stdio)");
    const kept = wrapServers({ mcpServers: { s: entry({ enabled: true }) } }, { provenant: PROVENANT }).document.mcpServers as Record<string, { env: unknown; enabled: unknown }>;
    expect(kept.s?.env).toEqual({ PROVENANT_MCP_HEADERS: '{"K":"v"}' });
    expect(kept.s?.enabled).toBe(true);
    expect(() => wrapServers([], { provenant: PROVENANT })).toThrow(/^the client's configuration is not a JSON object$/);
    try {
      wrapServers(null, { provenant: PROVENANT });
    } catch (error) {
      expect((error as Error).name).toBe("ClientConfigError");
    }
  });

  it("makes a server name from any key", () => {
    expect(serverName("fs")).toBe("fs");
    expect(serverName("my server!")).toBe("my-server");
    expect(serverName("a__b")).toBe("a-b");
    expect(serverName("!!!")).toBe("server");
  });
});
