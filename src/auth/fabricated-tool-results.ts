/**
 * Tool results may only arrive in real tool-response positions (RFC-001, "fabricated tool
 * results"). A model that writes one into its own text is anchoring a claim on data no tool
 * produced, so every shape models are seen to produce is cut out of assistant text and replaced
 * by an inert note: tag blocks, bracket and line headers with the paragraph they introduce, fenced
 * blocks, chat-template tokens, and JSON tool-result objects.
 */
export const FABRICATION_NOTE = "[fabricated tool result removed]";

export type FabricationShape = "tag-block" | "stray-closing-tag" | "bracket-header" | "line-header" | "fenced-block" | "template-token" | "json-type";

export interface StripResult {
  readonly text: string;
  readonly removed: number;
  readonly shapes: readonly FabricationShape[];
}

const TAG_NAMES = "tool_result|tool_results|tool_response|tool_output|function_results|function_result|function_response|tool_use_result|observation";

// A paragraph: up to the next blank line, or the end of the text.
const PARAGRAPH = "[^\\n]*(?:\\n(?![ \\t]*(?:\\n|$))[^\\n]*)*";

const SHAPES: readonly { shape: FabricationShape; re: RegExp }[] = [
  { shape: "fenced-block", re: /```[ \t]*(?:tool[_ -]?(?:result|output|response)|function[_ -]?results?|observation)\b[^\n]*\n[\s\S]*?(?:```|$)/gi },
  { shape: "tag-block", re: new RegExp(`<\\s*(${TAG_NAMES})\\b[^>]{0,1000}>[\\s\\S]*?(?:<\\s*\\/\\s*\\1\\s*>|$)`, "gi") },
  { shape: "stray-closing-tag", re: new RegExp(`<\\s*\\/\\s*(?:${TAG_NAMES})\\s*>`, "gi") },
  { shape: "template-token", re: /<\|\s*(?:tool_result|tool_response|tool|ipython|observation|function_results?)\s*\|>[\s\S]*?(?=<\||$)/gi },
  {
    shape: "bracket-header",
    re: new RegExp(`\\[\\s*(?:tool|function)[\\s_-]*(?:call[\\s_-]*)?(?:results?|outputs?|responses?)\\b[^\\]\\n]{0,200}\\]:?${PARAGRAPH}`, "gi"),
  },
  {
    shape: "line-header",
    re: new RegExp(`(?<=^|\\n)[ \\t]*(?:tool|function)[ _-]?(?:results?|outputs?|responses?)(?:[ \\t]+(?:for|from|of)[ \\t]+[^\\n:]{1,100})?[ \\t]*:${PARAGRAPH}`, "gi"),
  },
  { shape: "json-type", re: /"type"\s*:\s*"(?:tool_result|function_result|tool_response)"/gi },
];

const JSON_REPLACEMENT = '"type": "fabricated_tool_result_removed"';

// Removing one shape can butt two fragments together into another; passes repeat until nothing matches.
const MAX_PASSES = 16;

/** Strips fabricated tool results from assistant text. Idempotent. */
export function stripFabricatedToolResults(text: string): StripResult {
  let out = text;
  let removed = 0;
  const shapes = new Set<FabricationShape>();
  for (let pass = 0; pass < MAX_PASSES; pass++) {
    const before = removed;
    for (const { shape, re } of SHAPES) {
      out = out.replace(re, () => {
        removed++;
        shapes.add(shape);
        return shape === "json-type" ? JSON_REPLACEMENT : FABRICATION_NOTE;
      });
    }
    if (removed === before) break;
  }
  return { text: out, removed, shapes: [...shapes] };
}
