/**
 * The files a patch touches, read from its headers. Both the `*** Begin Patch` format of the
 * apply_patch tool and unified / git diffs are understood. The reading is deliberately generous:
 * every header-shaped line counts, with and without git's `a/` `b/` prefixes, because a path
 * reported too often only costs a check while a path missed is a bypass.
 */
export function extractPatchTargets(patch: string): string[] {
  const targets = new Set<string>();
  const add = (raw: string | undefined): void => {
    if (raw === undefined) return;
    const path = unquote(raw.trim());
    if (path === "" || path === "/dev/null") return;
    targets.add(path);
    const stripped = path.replace(/^[ab]\//, "");
    if (stripped !== path && stripped !== "") targets.add(stripped);
  };
  for (const line of patch.split(/\r\n|\r|\n/)) {
    let m: RegExpMatchArray | null;
    if ((m = /^\*\*\*\s*(?:Add|Update|Delete) File:\s*(.+)$/.exec(line))) add(m[1]);
    else if ((m = /^\*\*\*\s*Move to:\s*(.+)$/.exec(line))) add(m[1]);
    else if ((m = /^(?:---|\+\+\+) (.+)$/.exec(line))) add(stripTimestamp(m[1] ?? ""));
    else if ((m = /^diff --git (.+)$/.exec(line))) for (const part of splitGitPair(m[1] ?? "")) add(part);
    else if ((m = /^(?:rename|copy) (?:from|to) (.+)$/.exec(line))) add(m[1]);
  }
  return [...targets];
}

/** `--- a/x\t2024-01-01 ...`: the timestamp after a tab is not part of the name. */
function stripTimestamp(header: string): string {
  const tab = header.indexOf("\t");
  return tab === -1 ? header : header.slice(0, tab);
}

/** `a/x b/y`, or quoted halves for names with spaces; each ` b/` is a possible split. */
function splitGitPair(rest: string): string[] {
  const quoted = /^"((?:[^"\\]|\\.)*)" "((?:[^"\\]|\\.)*)"$/.exec(rest);
  if (quoted) return [`"${quoted[1] ?? ""}"`, `"${quoted[2] ?? ""}"`];
  const out: string[] = [];
  for (let i = rest.indexOf(" b/"); i !== -1; i = rest.indexOf(" b/", i + 1)) {
    out.push(rest.slice(0, i), rest.slice(i + 1));
  }
  if (out.length > 0) return out;
  const space = rest.indexOf(" ");
  return space === -1 ? [rest] : [rest.slice(0, space), rest.slice(space + 1)];
}

/** git quotes names with special characters C-style; JSON's escapes cover the common cases. */
function unquote(path: string): string {
  if (!(path.length >= 2 && path.startsWith('"') && path.endsWith('"'))) return path;
  try {
    const value: unknown = JSON.parse(path);
    return typeof value === "string" ? value : path;
  } catch {
    return path.slice(1, -1);
  }
}
