#!/usr/bin/env node
// Writes openclaw.plugin.json from the built plugin: OpenClaw reads the manifest (id, config
// schema, contracts) before it runs any plugin code, so the schema is generated from the same zod
// schema the guard validates with. Run after `npm run build`; `--check` fails if the file is stale.
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const repo = join(dirname(fileURLToPath(import.meta.url)), "..");
const { openclawManifest } = await import(join(repo, "dist/adapters/openclaw/manifest.js"));
const text = `${JSON.stringify(openclawManifest(), null, 2)}\n`;
const target = join(repo, "openclaw.plugin.json");
if (process.argv.includes("--check")) {
  let current = "";
  try {
    current = readFileSync(target, "utf8");
  } catch {
    // missing counts as stale
  }
  if (current !== text) {
    console.error("openclaw.plugin.json is out of date: run npm run build && node scripts/openclaw-manifest.mjs");
    process.exit(1);
  }
} else {
  writeFileSync(target, text);
}
