import { isAbsolute } from "node:path";
import { isRecord } from "./json-record.js";

/** A result's text longer than this is not read as JSON for the file it names. */
export const MAX_JSON_TEXT = 1 << 20;
/** More files than this named by one result: the rest are not looked for. */
const MAX_SAVED_FILES = 8;

/**
 * The files a host saved a tool's whole output into when it showed the model only the start of
 * it, as the host's own result names them. A later read of such a file brings in the rest, which
 * no judgment of the shown part covered, so the file must read at the output's trust.
 *
 * - OpenClaw 2026.9.6: `web_fetch` returns JSON (as the text of its content, and as the result's
 *   `details`) naming the file at `spill.path`; the host reads a result's `details.fullOutputPath`
 *   the same way (the coding agent's `bash` tool, which it builds on, sets it).
 * - Claude Code 2.1.332: a `Bash` result too long to show names it at `persistedOutputPath`.
 *
 * Only those keys of the result's own object, of its `details`, or of a JSON object that is the
 * whole of one of its texts: a page inside a JSON string can add no key there. Relative paths are
 * not taken (a host names the file absolutely).
 */
export function savedOutputFiles(output: unknown): string[] {
  const found = new Set<string>();
  const take = (value: unknown) => {
    if (found.size < MAX_SAVED_FILES && typeof value === "string" && isAbsolute(value) && !value.includes("\0")) found.add(value);
  };
  const named = (record: Record<string, unknown>) => {
    take(record.persistedOutputPath);
    take(record.fullOutputPath);
    if (isRecord(record.spill)) take(record.spill.path);
  };
  const text = (value: unknown) => {
    if (typeof value !== "string" || value.length > MAX_JSON_TEXT) return;
    let parsed: unknown;
    try {
      parsed = JSON.parse(value);
    } catch {
      return; // Not JSON (most text fails at its first character): it names nothing.
    }
    if (isRecord(parsed)) named(parsed);
  };
  const content = (blocks: unknown) => {
    if (!Array.isArray(blocks)) return;
    for (const block of blocks) if (isRecord(block) && block.type === "text") text(block.text);
  };
  if (typeof output === "string") text(output);
  else if (Array.isArray(output)) content(output);
  else if (isRecord(output)) {
    named(output);
    if (isRecord(output.details)) named(output.details);
    content(output.content);
  }
  return [...found];
}
