import { FILE_PATH_PARAMS } from "./file-path-param.js";
import { hostPathReadings, hostPatchHeaderPaths } from "./host-paths.js";

/**
 * Every path a file-writing call may land on, read as the host reads it (core/host-paths.ts):
 * `write`/`edit` name theirs in `path` (or `file_path`; Claude Code's `NotebookEdit` in `notebook_path`), `apply_patch` in the headers of its
 * `input`. `morePatchPaths` adds a second, more generous reading of patch headers (unified and git
 * diffs); a write counts as aimed at every path either reading gives.
 */
export function writeTargets(
  tool: string,
  params: Readonly<Record<string, unknown>>,
  home: string,
  morePatchPaths: (patch: string) => readonly string[] = () => [],
): string[] {
  const targets = new Set<string>();
  if (tool === "apply_patch") {
    const patch = firstString(params, "input", "patch") ?? "";
    for (const path of new Set([...hostPatchHeaderPaths(patch), ...morePatchPaths(patch)])) {
      for (const reading of hostPathReadings(path, "patch", home)) targets.add(reading);
    }
  } else {
    for (const reading of pathParamReadings(params, home)) targets.add(reading);
  }
  return [...targets];
}

/** Every path the host may read a file tool's path arguments (`path`, `file_path`, `notebook_path`) as. */
export function pathParamReadings(params: Readonly<Record<string, unknown>>, home: string): string[] {
  const readings = new Set<string>();
  for (const key of FILE_PATH_PARAMS) {
    const value = params[key];
    if (typeof value === "string" && value !== "") for (const reading of hostPathReadings(value, "tool", home)) readings.add(reading);
  }
  return [...readings];
}

function firstString(params: Readonly<Record<string, unknown>>, ...names: string[]): string | undefined {
  for (const name of names) {
    const value = params[name];
    if (typeof value === "string") return value;
  }
  return undefined;
}
