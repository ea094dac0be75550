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

  it("makes a server name from any key", () => {
    expect(serverName("fs")).toBe("fs");
    expect(serverName("my server!")).toBe("my-server");
    expect(serverName("a__b")).toBe("a-b");
    expect(serverName("!!!")).toBe("server");
  });
});
