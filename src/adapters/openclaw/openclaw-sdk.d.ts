/**
 * The one runtime import the entry takes from OpenClaw, declared for builds where the `openclaw`
 * package (which needs Node 24+) is not installed. Inside OpenClaw the real module is resolved;
 * the end-to-end tier compiles the entry against the real declarations instead of this file.
 */
declare module "openclaw/plugin-sdk/plugin-entry" {
  export function definePluginEntry(entry: import("./sdk-types.js").PluginEntry): import("./sdk-types.js").PluginEntry;
}
