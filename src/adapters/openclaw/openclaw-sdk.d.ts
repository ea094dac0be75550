/**
 * What the adapter takes from `openclaw/plugin-sdk/plugin-entry`, declared for builds where the
 * `openclaw` package (which needs Node 24+) is not installed: the entry helper, and the API type
 * as the adapter sees it. Inside OpenClaw the real module is resolved; the end-to-end tier
 * compiles the entry and test/e2e/sdk-conformance against the real declarations instead.
 */
declare module "openclaw/plugin-sdk/plugin-entry" {
  export type OpenClawPluginApi = import("./sdk-types.js").PluginApi;
  export function definePluginEntry(entry: import("./sdk-types.js").PluginEntry): import("./sdk-types.js").PluginEntry;
}
