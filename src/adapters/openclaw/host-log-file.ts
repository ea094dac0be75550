import { homedir } from "node:os";
import { resolve } from "node:path";
import { hostConfigValue } from "./host-config.js";

/**
 * The log file the owner configured OpenClaw to write (`logging.file`), where OpenClaw writes it:
 * a leading `~` is OpenClaw's home (`OPENCLAW_HOME`, else the user's), a relative path is taken
 * from where the gateway runs, which is where this plugin runs. Empty when none is configured: the
 * dated log OpenClaw writes by default is a `fileTrust` default (core/file-trust.ts).
 */
export function openclawLogFiles(config: unknown, env: NodeJS.ProcessEnv = process.env, osHome: string = homedir()): string[] {
  const file = hostConfigValue(config, ["logging", "file"]);
  if (typeof file !== "string" || file.trim() === "") return [];
  const home = openclawHome(env, osHome);
  return [resolve(file.replace(/^~(?=$|\/)/, () => home))];
}

function openclawHome(env: NodeJS.ProcessEnv, osHome: string): string {
  const explicit = env.OPENCLAW_HOME?.trim();
  if (explicit === undefined || explicit === "") return osHome;
  return resolve(explicit.replace(/^~(?=$|\/)/, () => osHome));
}
