import { describe, expect, it } from "vitest";
import { RemoteServerError, remoteHeaders, remoteUrl } from "../../../src/adapters/mcp/remote-server.js";

describe("a remote MCP server's URL and headers", () => {
  it("takes https anywhere and plain http to this machine only", () => {
    expect(remoteUrl("https://mcp.example.com/mcp?team=1#x").href).toBe("https://mcp.example.com/mcp?team=1");
    for (const local of ["http://localhost:8080/mcp", "http://127.0.0.1/mcp", "http://127.9.0.1/mcp", "http://[::1]:3000/mcp"]) expect(remoteUrl(local).protocol).toBe("http:");
    expect(() => remoteUrl("http://mcp.example.com/mcp")).toThrow(/plain http is for a server on this machine only .* not mcp\.example\.com; use https/);
    expect(() => remoteUrl("http://127.0.0.1.evil.com/mcp")).toThrow(/plain http/);
    expect(() => remoteUrl("http://localhost.evil.com/mcp")).toThrow(/plain http/);
    expect(() => remoteUrl("ws://example.com/mcp")).toThrow(/ws: is not HTTP/);
    expect(() => remoteUrl("https://user:pw@example.com/mcp")).toThrow(/user or password/);
    expect(() => remoteUrl("example.com/mcp")).toThrow(/^--url "example\.com\/mcp" is not a URL$/);
    expect(() => remoteUrl("https://user@example.com/mcp")).toThrow(/user or password/);
    expect(() => remoteUrl("https://:pw@example.com/mcp")).toThrow(/user or password/);
    try {
      remoteUrl("nonsense");
    } catch (error) {
      expect((error as Error).name).toBe("RemoteServerError");
    }
  });

  it("reads headers from the environment's JSON object, then the flags, a later one of the same name replacing an earlier", () => {
    expect(remoteHeaders(["X-Team: blue", "authorization:  Bearer b  "], JSON.stringify({ Authorization: "Bearer a", "X-Env": "1" }))).toEqual({ authorization: "Bearer b", "X-Env": "1", "X-Team": "blue" });
    expect(remoteHeaders([], undefined)).toEqual({});
    // Space around the colon is not part of the name or the value.
    expect(remoteHeaders(["X-Team : blue "], undefined)).toEqual({ "X-Team": "blue" });
    expect(() => remoteHeaders(["X-Key: a\nb"], undefined)).toThrow(/^--header: the value of X-Key holds/);
    expect(remoteHeaders([], "")).toEqual({});
  });

  it("refuses what the transport sets, line breaks, names that are not names and values that are not strings, never quoting a value", () => {
    const key = "sk-live-0123456789";
    const refusals: [() => unknown, RegExp][] = [
      [() => remoteHeaders(["Mcp-Session-Id: x"], undefined), /Mcp-Session-Id is set by the transport itself/],
      [() => remoteHeaders(["accept: */*"], undefined), /set by the transport/],
      [() => remoteHeaders([`X-Key: ${key}\r\nX-Evil: 1`], undefined), /holds a character a header cannot carry/],
      [() => remoteHeaders([`Authorization Bearer ${key}: x`], undefined), /a header's name holds a character names cannot/],
      [() => remoteHeaders([`Bearer ${key}`], undefined), /give "Name: value"/],
      [() => remoteHeaders([": x"], undefined), /give "Name: value"/],
      [() => remoteHeaders([], `{"Authorization": ["${key}"]}`), /PROVENANT_MCP_HEADERS: a header's value is not a string/],
      [() => remoteHeaders([], `Authorization: ${key}`), /PROVENANT_MCP_HEADERS is not JSON/],
      [() => remoteHeaders([], `["${key}"]`), /not a JSON object/],
      [() => remoteHeaders([], `{"Bad Name ${key}": "x"}`), /PROVENANT_MCP_HEADERS: a header's name/],
    ];
    for (const [run, why] of refusals) {
      expect(run).toThrow(why);
      expect(run).toThrow(RemoteServerError);
      try {
        run();
      } catch (error) {
        expect(String(error)).not.toContain(key);
      }
    }
  });
});
