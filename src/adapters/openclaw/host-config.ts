/**
 * A value of OpenClaw's own configuration (`api.config`) at a key path, or undefined: the plugin
 * reads the host's settings it depends on without trusting their shape.
 */
export function hostConfigValue(config: unknown, path: readonly string[]): unknown {
  let here = config;
  for (const key of path) {
    if (here === null || typeof here !== "object" || Array.isArray(here) || !Object.hasOwn(here, key)) return undefined;
    here = (here as Record<string, unknown>)[key];
  }
  return here;
}
