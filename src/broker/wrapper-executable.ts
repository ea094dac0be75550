import { execFile } from "node:child_process";
import { chmodSync, copyFileSync, existsSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

/**
 * Builds provenant-wrap as a Node single executable application: the wrapper bundled into one script
 * (esbuild) and injected into a copy of this Node binary (postject). The caller allow-list can then
 * name the wrapper itself: its /proc/<pid>/exe is the built file, not the node interpreter every
 * script shares. The result ignores node's command-line options (they reach the wrapper as tool
 * arguments); NODE_OPTIONS still applies to it, which is why the daemon refuses callers started with
 * it. Install the file root-owned and read-only for the sandbox, and symlink tool names to it.
 */
const SEA_FUSE = "NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2";
const run = promisify(execFile);

interface Esbuild {
  build(options: Record<string, unknown>): Promise<unknown>;
}
interface Postject {
  inject(file: string, resource: string, data: Buffer, options: { sentinelFuse: string }): Promise<void>;
}

function wrapperEntry(): string {
  const here = dirname(fileURLToPath(import.meta.url));
  for (const name of ["wrap-main.js", "wrap-main.ts"]) {
    const candidate = join(here, name);
    if (existsSync(candidate)) return candidate;
  }
  throw new Error(`wrapper entry not found next to ${here}`);
}

export async function buildWrapperExecutable(out: string, nodeBinary: string = process.execPath): Promise<void> {
  const esbuild = (await import("esbuild")) as unknown as Esbuild;
  // postject ships no type declarations; the specifier is a variable so the compiler does not look for them.
  const postjectModule = "postject";
  const postject = (await import(postjectModule)) as Postject;
  const work = mkdtempSync(join(tmpdir(), "provenant-wrap-build-"));
  try {
    const bundle = join(work, "wrap.cjs");
    await esbuild.build({
      entryPoints: [wrapperEntry()],
      bundle: true,
      platform: "node",
      format: "cjs",
      target: "node20",
      outfile: bundle,
      logLevel: "silent",
    });
    const blob = join(work, "wrap.blob");
    writeFileSync(join(work, "sea.json"), JSON.stringify({ main: bundle, output: blob, disableExperimentalSEAWarning: true }));
    await run(nodeBinary, ["--experimental-sea-config", join(work, "sea.json")], { cwd: work });
    const staged = join(dirname(out), `.${Date.now()}.${process.pid}.provenant-wrap.tmp`);
    copyFileSync(nodeBinary, staged);
    try {
      chmodSync(staged, 0o755);
      await postject.inject(staged, "NODE_SEA_BLOB", readFileSync(blob), { sentinelFuse: SEA_FUSE });
      renameSync(staged, out);
    } catch (error) {
      rmSync(staged, { force: true });
      throw error;
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
