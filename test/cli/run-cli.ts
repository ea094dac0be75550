import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

/** The built CLI's entry point. */
export const CLI_MAIN = fileURLToPath(new URL("../../dist/cli/main.js", import.meta.url));

/** Runs the built `provenant` CLI (npm test builds first) as a real child process. */
export function runCli(args: readonly string[], input?: string, cwd?: string): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [CLI_MAIN, ...args], { input, cwd, encoding: "utf8", env: { ...process.env, NO_COLOR: "1" } });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}
