import type { Command } from "commander";
import { parse as parseYaml } from "yaml";
import { ConfigError } from "../core/config-error.js";
import { MAX_YAML_NESTING, yamlNestingExceeds } from "../core/yaml-text-bounds.js";
import { resolveGuardConfig } from "../guard-config.js";
import { displayBlock, displayJson } from "../core/safe-display.js";
import { exitWith } from "./exit.js";
import { readInputFile } from "./input-file.js";

/**
 * Reads a plugin configuration: a bare config object, or a whole `openclaw.json` from which the
 * `plugins.entries.provenant.config` block is taken. JSON or YAML.
 */
export function readConfigFile(path: string): unknown {
  const text = readInputFile(path);
  const yaml = path.endsWith(".yaml") || path.endsWith(".yml");
  if (yaml && yamlNestingExceeds(text)) {
    throw new ConfigError([{ key: path, message: `is nested deeper than ${MAX_YAML_NESTING} levels; no configuration needs that, and a parser would run out of memory` }]);
  }
  const value: unknown = yaml ? parseYaml(text) : JSON.parse(text);
  if (value !== null && typeof value === "object" && "plugins" in value) {
    const entries = (value as { plugins?: { entries?: Record<string, { config?: unknown }> } }).plugins?.entries ?? {};
    return entries.provenant?.config ?? {};
  }
  return value;
}

export function registerConfigCommands(program: Command): void {
  const config = program.command("config").description("configuration tools");
  config
    .command("check")
    .description("validate a configuration and print it resolved, or every problem with it")
    .argument("<file>", "JSON or YAML plugin config, or an openclaw.json")
    .action((file: string) => {
      try {
        const { config: resolved, warnings } = resolveGuardConfig(readConfigFile(file));
        for (const warning of warnings) process.stderr.write(`warning: ${displayBlock(warning)}\n`);
        process.stdout.write(`${displayJson(resolved, 2)}\n`);
      } catch (error) {
        exitWith("config check", error);
      }
    });
}
