import { fileURLToPath } from "node:url";
import { posix, win32 } from "node:path";

/**
 * A file tool's path as the host reads it, before it is resolved on disk. OpenClaw 2026.9.6 (its
 * `path-utils`, `sandbox-paths`, `path-policy` and `apply-patch-paths` modules) rewrites what the
 * model wrote before any file is touched:
 *
 * - a trailing `</arg_value>>` (a malformed tool-call rendering) is cut off, and a hallucinated
 *   `.docodex`-style extension becomes `.docx` / `.pptx` / `.xlsx`;
 * - one leading `@` is a file reference and is dropped (`@SOUL.md` is `SOUL.md`), unless a file or
 *   directory literally named `@...` exists there, which the host keeps; `@@x` is `./@x`;
 * - `~` and `~/...` are the home directory;
 * - a `file://` URL is its path (percent-decoded) for `read`/`write`/`edit`, but is a plain
 *   relative name inside an `apply_patch` header.
 *
 * Whether the literal `@` file exists is a question about the disk, which this pure module does not
 * ask: it returns every reading the host could make, and the caller treats a write as aimed at each.
 * The results are absolute or relative to the tool's working directory (the workspace).
 */

/** Where a path was written: a tool's `path` argument, or a header inside an `apply_patch` input. */
export type PathSource = "tool" | "patch";

const XML_ARG_VALUE_SUFFIX = /<\/arg_value>>+$/;
const HALLUCINATED_OFFICE_EXTENSION = /\.(doc|ppt|xls)(?:odex|codex|xodex|xcodex)$/i;

/** The host's repair of a `path` argument before it reads it (tool paths only). */
function repairToolPath(raw: string): string {
  const cut = raw.includes("</arg_value>") ? raw.replace(XML_ARG_VALUE_SUFFIX, "") : raw;
  return cut.replace(HALLUCINATED_OFFICE_EXTENSION, (_match, family: string) => `.${family.toLowerCase()}x`);
}

/** True when the host would never keep `@...` literally: what follows is home, a URL, or absolute. */
function atPrefixAlwaysStripped(stripped: string): boolean {
  return (
    stripped === "" ||
    stripped === "~" ||
    stripped.startsWith("~/") ||
    stripped.startsWith("~\\") ||
    /^file:\/\//i.test(stripped) ||
    posix.isAbsolute(stripped) ||
    win32.isAbsolute(stripped)
  );
}

/** `@x` → `x`, `@@x` → `./@x`: the host's file-reference prefix. */
function dropReferencePrefix(path: string): string {
  const referenced = path.startsWith("@") ? path.slice(1) : path;
  return referenced.startsWith("@") ? `./${referenced}` : referenced;
}

/** `~` and `~/…` in the user's home directory; any other path as it is. */
export function expandHome(path: string, home: string): string {
  if (path === "~") return home;
  if (path.startsWith("~/")) return `${home}${path.slice(1)}`;
  return path;
}

function expand(path: string, source: PathSource, home: string): string {
  const referenced = dropReferencePrefix(path);
  if (source === "tool" && referenced.startsWith("file://")) {
    try {
      return fileURLToPath(referenced);
    } catch {
      // The host keeps a URL it cannot convert (a remote host, an encoded slash) as written.
      return referenced;
    }
  }
  return expandHome(referenced, home);
}

/**
 * Every path the host may read `raw` as (at least one; de-duplicated, in the order: the reading the
 * host makes when no literal `@` file exists, then the literal one, then the unrepaired spelling).
 */
export function hostPathReadings(raw: string, source: PathSource, home: string): string[] {
  const readings = new Set<string>();
  const spellings = source === "tool" ? [repairToolPath(raw), raw] : [raw];
  for (const spelling of spellings) {
    readings.add(expand(spelling, source, home));
    if (spelling.startsWith("@") && !atPrefixAlwaysStripped(spelling.slice(1))) readings.add(`./${spelling}`);
  }
  // `@` alone is the working directory itself.
  return [...readings].map((r) => (r === "" ? "." : r));
}

const PATCH_MARKERS = ["*** Add File: ", "*** Delete File: ", "*** Update File: ", "*** Move to: "] as const;

/**
 * The paths in an `apply_patch` input as the host's envelope grammar finds them: a header line may
 * be indented and may carry trailing spaces. Generous on purpose (every header-shaped line, in any
 * position): a path reported too often costs a check, a path missed is a bypass.
 */
export function hostPatchHeaderPaths(patch: string): string[] {
  const paths = new Set<string>();
  for (const line of patch.split(/\r?\n/)) {
    const header = line.trimStart();
    if (!header.startsWith("***")) continue;
    const trimmed = header.trimEnd();
    for (const marker of PATCH_MARKERS) {
      if (trimmed.startsWith(marker)) {
        const path = trimmed.slice(marker.length);
        if (path !== "") paths.add(path);
      }
    }
  }
  return [...paths];
}
