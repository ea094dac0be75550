import { readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { openClawInstall } from "../e2e/harness/openclaw.js";

/**
 * One of the pinned OpenClaw's own functions, found by the source module it was bundled from (the
 * `//#region src/...` marker its bundler leaves) and its original name in the export list, so the
 * test calls the host's code itself rather than a copy of it.
 */
export async function openClawFunction<F>(sourceModule: string, name: string): Promise<F> {
  const dist = join(dirname(openClawInstall().entry), "dist");
  const marker = `//#region ${sourceModule}\n`;
  for (const file of readdirSync(dist)) {
    if (!file.endsWith(".mjs")) continue;
    const text = readFileSync(join(dist, file), "utf8");
    if (!text.includes(marker)) continue;
    const exported = new RegExp(`\\b${name} as (\\w+)\\b`).exec(text.slice(text.lastIndexOf("export {")));
    if (exported === null) continue;
    const module = (await import(pathToFileURL(join(dist, file)).href)) as Record<string, unknown>;
    const fn = module[exported[1] as string];
    if (typeof fn === "function") return fn as F;
  }
  throw new Error(`the pinned OpenClaw has no ${name} in ${sourceModule}`);
}
