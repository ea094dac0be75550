import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { consoleLoginFile, gatewayConsoleService } from "../../../src/service/console/gateway-console.js";
import { login, rawRequest } from "./console-http.js";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe("the console as an OpenClaw gateway service", () => {
  it("starts once on loopback, leaves its one-time URL in a private file named in the log, keeps the console's checks, and stops", async () => {
    const workspace = mkdtempSync(join(tmpdir(), "provenant-gw-console-"));
    const stateDir = mkdtempSync(join(tmpdir(), "provenant-gw-state-"));
    dirs.push(workspace, stateDir);
    const logged: string[] = [];
    const service = gatewayConsoleService({ workspace: () => workspace, port: 0, log: (m) => logged.push(m) });
    await service.start({ stateDir });
    await service.start({ stateDir });
    try {
      const file = consoleLoginFile(stateDir);
      expect(logged.filter((m) => m.includes(`its one-time login URL is in ${file}`))).toHaveLength(1);
      // The log has the origin, never the token.
      expect(logged.join("\n")).not.toMatch(/token=/);
      expect(statSync(file).mode & 0o777).toBe(0o600);
      const url = /^(http:\/\/127\.0\.0\.1:(\d+)\/login\?token=[0-9a-f]{64})\n$/.exec(readFileSync(file, "utf8"));
      expect(url).not.toBeNull();
      const port = Number(url![2]);
      expect((await rawRequest(port, { path: "/approvals" })).status).toBe(403);
      const { cookie, csrf } = await login(port, url![1]!);
      expect((await rawRequest(port, { path: "/approvals", headers: { cookie } })).status).toBe(200);
      expect((await rawRequest(port, { path: "/approvals", headers: { cookie, host: "evil.example" } })).status).toBe(403);
      const post = { method: "POST", path: "/sessions/reset", headers: { cookie, "x-provenant-csrf": csrf, "content-type": "application/x-www-form-urlencoded", origin: "http://evil.example" }, body: "session=s&level=trusted" };
      expect((await rawRequest(port, post)).status).toBe(403);
      // The token worked once.
      expect((await rawRequest(port, { path: new URL(url![1]!).pathname + new URL(url![1]!).search })).status).toBe(403);
      await service.stop();
      await expect(rawRequest(port, { path: "/approvals" })).rejects.toThrow(/ECONNREFUSED/);
    } finally {
      await service.stop();
    }
  });
});
