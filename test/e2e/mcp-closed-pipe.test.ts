import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { FILESYSTEM_SERVER, FS_CONFIG, MAIN, removeScenes, scene } from "./mcp-harness.js";

afterAll(removeScenes);

const request = (id: number, method: string, params: unknown = {}) => `${JSON.stringify({ jsonrpc: "2.0", id, method, params })}\n`;

describe("provenant mcp when the client stops reading", () => {
  it("a client that closes its end of the pipe: the proxy stops the server and exits, with no stack trace", async () => {
    const s = scene(FS_CONFIG);
    const files = join(s.dir, "files");
    mkdirSync(files);
    const proxy = spawn(process.execPath, [MAIN, "mcp", "--name", "fs", "--workspace", s.workspace, "--config", s.configFile, "--", process.execPath, FILESYSTEM_SERVER, files], {
      stdio: ["pipe", "pipe", "pipe"],
      env: { ...process.env, PROVENANT_CONFIG: "" },
    });
    let stderr = "";
    proxy.stderr.on("data", (d: Buffer) => (stderr += d.toString("utf8")));
    const exited = once(proxy, "exit");
    proxy.stdin.write(request(1, "initialize", { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } }));
    await once(proxy.stdout, "data");
    // The client goes away without closing stdin: the proxy learns it on its next write.
    proxy.stdout.destroy();
    proxy.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })}\n`);
    proxy.stdin.write(request(2, "tools/list"));
    await exited;
    expect(stderr).toContain("writing to the client failed");
    expect(stderr).toContain("stopping the server");
    expect(stderr).not.toMatch(/throw er|Unhandled 'error' event/);
  });
});
