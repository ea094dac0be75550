/** Claude Code's tool that loads deferred tools (2.1.332: MCP tools are deferred by default). */
export const TOOL_SEARCH = "ToolSearch";
/** A search loads a handful; past this many names, the rest are not read. */
const MAX_LOADED = 100;

/**
 * The MCP tools (`mcp__<server>__<tool>`) a `ToolSearch` result loads: Claude Code puts their
 * definitions, with the descriptions their servers wrote, in the model's tools from the next
 * request on. Read from `matches`, the names its PostToolUse reports (checked with 2.1.332:
 * `{matches, query, total_deferred_tools}`); anything else loads nothing.
 */
export function mcpToolsLoaded(toolName: string, response: unknown): string[] {
  if (toolName !== TOOL_SEARCH || response === null || typeof response !== "object") return [];
  const matches = (response as { matches?: unknown }).matches;
  if (!Array.isArray(matches)) return [];
  const names = matches.slice(0, MAX_LOADED).filter((m): m is string => typeof m === "string" && m.startsWith("mcp__"));
  return [...new Set(names)];
}
