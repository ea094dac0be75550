import type { GateFiles } from "./gate.js";
import type { HostCatalogue } from "./host-catalogue.js";
import { pathParamReadings, writeTargets } from "./write-targets.js";

/**
 * What a gate is told of a file tool's call (GateFiles): every path the host may read its path
 * arguments as, and whether it writes them; undefined for a tool that names no file. A gate that
 * resolved only the spelling the model wrote would let `@SOUL.md` through to SOUL.md.
 */
export function gateFiles(
  catalogue: HostCatalogue,
  tool: string,
  params: Readonly<Record<string, unknown>>,
  home: string,
  morePatchPaths?: (patch: string) => readonly string[],
): GateFiles | undefined {
  if (catalogue.fileWriteTools.has(tool)) return { writes: true, paths: writeTargets(tool, params, home, morePatchPaths) };
  if (catalogue.fileReadTools.has(tool)) return { writes: false, paths: pathParamReadings(params, home) };
  return undefined;
}
