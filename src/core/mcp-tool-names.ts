/**
 * A tool served by an MCP server is named `mcp__<server>__<tool>`, as Claude Code names them, so
 * one configuration reads the same whichever front end the server runs behind. The key
 * `mcp__<server>__*` in `toolOutputTaints`, `toolActionClasses` and `toolOverrides` stands for
 * every tool of that server a more specific key does not name.
 */
export const MCP_TOOL_PREFIX = "mcp__";

/** Server names become file names and part of tool names: letters, digits, `-` and single `_`. */
const SERVER_NAME = /^[A-Za-z0-9](?:[A-Za-z0-9-]|_(?!_)){0,62}$/u;

export function isMcpServerName(name: string): boolean {
  return SERVER_NAME.test(name) && !name.endsWith("_");
}

export function mcpToolName(server: string, tool: string): string {
  return `${MCP_TOOL_PREFIX}${server}__${tool}`;
}

/** `mcp__fs__*` for `mcp__fs__write_file`; null for a name that is not an MCP tool's. */
export function mcpServerWildcard(tool: string): string | null {
  if (!tool.startsWith(MCP_TOOL_PREFIX)) return null;
  const cut = tool.indexOf("__", MCP_TOOL_PREFIX.length);
  if (cut <= MCP_TOOL_PREFIX.length) return null;
  const wildcard = `${tool.slice(0, cut)}__*`;
  return wildcard === tool ? null : wildcard;
}
