/**
 * Where a file tool names its file: OpenClaw's `path`, Claude Code's `file_path`, and
 * `notebook_path` for a notebook.
 */
export const FILE_PATH_PARAMS = ["path", "file_path", "notebook_path"] as const;

/** The first of them a call gives as text, if any. */
export function filePathParam(params: Readonly<Record<string, unknown>>): string | undefined {
  return FILE_PATH_PARAMS.map((key) => params[key]).find((value): value is string => typeof value === "string");
}
