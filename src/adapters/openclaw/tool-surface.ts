import { DEFAULT_ACTION_CLASSES, DEFAULT_TOOL_OUTPUT_TAINTS } from "../../core/tool-catalogue.js";

/**
 * The tool names an agent's model is offered. `before_prompt_build` narrows the tools with an
 * allow-list but is not told the list, so it is learned from `llm_input` (which carries the tools
 * of each model call) per agent, seeded with the tools the catalogue knows. Until an agent's first
 * model call has been seen, a tool neither catalogued nor registered by this plugin is missing
 * from the list, and is hidden on a turn where anything is narrowed at all.
 */
export class ToolSurface {
  private readonly seen = new Map<string, Set<string>>();
  private readonly base: readonly string[];

  constructor(ownTools: readonly string[]) {
    this.base = [...new Set([...Object.keys(DEFAULT_TOOL_OUTPUT_TAINTS), ...Object.keys(DEFAULT_ACTION_CLASSES), ...ownTools])];
  }

  learn(agentId: string | null, tools: unknown): void {
    if (!Array.isArray(tools)) return;
    const key = agentId ?? "";
    let names = this.seen.get(key);
    if (names === undefined) {
      names = new Set();
      this.seen.set(key, names);
    }
    for (const tool of tools) {
      const name = toolName(tool);
      if (name !== undefined) names.add(name);
    }
  }

  candidates(agentId: string | null): string[] {
    return [...new Set([...this.base, ...(this.seen.get(agentId ?? "") ?? [])])];
  }
}

function toolName(tool: unknown): string | undefined {
  if (tool === null || typeof tool !== "object") return undefined;
  const record = tool as Record<string, unknown>;
  if (typeof record.name === "string") return record.name;
  const fn = record.function;
  if (fn !== null && typeof fn === "object" && typeof (fn as Record<string, unknown>).name === "string") return (fn as { name: string }).name;
  return undefined;
}

/**
 * The allow-list for `toolsAllow`, or undefined when the guard removes nothing (leaving the host's
 * list untouched, so tools this plugin has not yet seen are not hidden for nothing).
 */
export function narrowedTools(candidates: readonly string[], allowed: readonly string[]): string[] | undefined {
  return allowed.length === candidates.length ? undefined : [...allowed];
}
