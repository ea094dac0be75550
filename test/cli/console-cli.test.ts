import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it, vi } from "vitest";
import { rawRequest } from "../service/console/console-http.js";
import { runCli } from "./run-cli.js";

const MAIN = fileURLToPath(new URL("../../dist/cli/main.js", import.meta.url));
const cleanup: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanup.splice(0)) c();
});

describe("provenant console", () => {
  it("prints a loopback login URL, serves it, and stops on SIGTERM", async () => {
    const ws = mkdtempSync(join(tmpdir(), "provenant-console-cli-"));
    cleanup.push(() => rmSync(ws, { recursive: true, force: true }));
    const child = spawn(process.execPath, [MAIN, "console", "--workspace", ws], { stdio: ["ignore", "pipe", "pipe"] });
    cleanup.push(() => child.kill("SIGKILL"));
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString("utf8")));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString("utf8")));
    const url = await vi.waitFor(
      () => {
        const line = /^(http:\/\/127\.0\.0\.1:\d+\/login\?token=[0-9a-f]{64})$/m.exec(stdout)?.[1];
        if (line === undefined) throw new Error(`no URL yet: ${stdout} ${stderr}`);
        return new URL(line);
      },
      { timeout: 30_000, interval: 50 },
    );
    expect(stderr).toContain(`workspace ${ws} (from --workspace)`);
    const port = Number(url.port);
    expect((await rawRequest(port, { path: "/approvals" })).status).toBe(403);
    const login = await rawRequest(port, { path: `${url.pathname}${url.search}` });
    expect(login.status).toBe(303);
    expect(login.headers.location).toBe("/approvals");
    const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
    child.kill("SIGTERM");
    expect(await exited).toBe(0);
  });

  it("refuses a port that is not one and a workspace that is not a directory, naming them", () => {
    const bad = runCli(["console", "--port", "70000", "--workspace", "."]);
    expect(bad.status).not.toBe(0);
    expect(bad.stderr).toMatch(/--port must be a whole number from 0 to 65535/);
    const missing = runCli(["console", "--workspace", "/nonexistent/provenant-ws"]);
    expect(missing.status).not.toBe(0);
    expect(missing.stderr).toMatch(/workspace \/nonexistent\/provenant-ws \(from --workspace\) is not a directory/);
  });
});
