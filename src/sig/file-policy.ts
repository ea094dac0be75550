import type { FilePolicy, SigConfig } from "./sig-config.js";

/** What a path with no matching entry gets: nothing may change it through update_and_sign. */
export const DEFAULT_FILE_POLICY: FilePolicy = Object.freeze({ mutable: false });

export interface MatchOptions {
  /** Fold case on both sides, for file systems where `SOUL.md` and `soul.md` are one file. */
  readonly caseInsensitive?: boolean;
}

/**
 * sig's file pattern: a pattern without `*` matches one path exactly; with `*`, the directory
 * part must be equal and `*` matches any run of characters inside the file name (never a `/`).
 * Every other character is literal (sig's regex lets `?` act as a quantifier; here it does not).
 * Paths and patterns use `/`; callers convert platform separators first.
 */
export function matchesFilePattern(pattern: string, filePath: string, options: MatchOptions = {}): boolean {
  const p = options.caseInsensitive ? pattern.toLowerCase() : pattern;
  const f = options.caseInsensitive ? filePath.toLowerCase() : filePath;
  if (!p.includes("*")) return p === f;
  const patternDir = posixDirname(p);
  if (patternDir !== posixDirname(f)) return false;
  const patternName = patternDir === "." ? p : p.slice(patternDir.length + 1);
  const fileName = posixDirname(f) === "." ? f : f.slice(patternDir.length + 1);
  return matchesWildcard(patternName, fileName);
}

/** The entry that governs a path: an exact key wins, then the longest matching `*` pattern. */
export function findFilePolicy(
  config: SigConfig,
  filePath: string,
  options: MatchOptions = {},
): { readonly pattern: string; readonly policy: FilePolicy } | undefined {
  const files = config.files;
  if (files === undefined) return undefined;
  if (Object.hasOwn(files, filePath)) {
    const policy = files[filePath];
    if (policy !== undefined) return { pattern: filePath, policy };
  }
  let best: { pattern: string; policy: FilePolicy } | undefined;
  for (const [pattern, policy] of Object.entries(files)) {
    const exact = !pattern.includes("*");
    if (exact && !options.caseInsensitive) continue;
    if (!matchesFilePattern(pattern, filePath, options)) continue;
    // Under case folding an exact key can match a differently cased path; it still outranks globs.
    if (exact) return { pattern, policy };
    if (best === undefined || pattern.length > best.pattern.length) best = { pattern, policy };
  }
  return best;
}

export function resolveFilePolicy(config: SigConfig, filePath: string, options: MatchOptions = {}): FilePolicy {
  const found = findFilePolicy(config, filePath, options);
  return found === undefined ? DEFAULT_FILE_POLICY : { ...DEFAULT_FILE_POLICY, ...found.policy };
}

/**
 * sig's identity pattern: exact without `*`; with `*`, a prefix match on everything before the
 * first `*` (so `owner:*` admits `owner:+1234567890:whatsapp` but not `admin:adam`).
 */
export function matchesIdentityPattern(pattern: string, identity: string): boolean {
  const star = pattern.indexOf("*");
  if (star === -1) return pattern === identity;
  return identity.startsWith(pattern.slice(0, star));
}

/** A policy without authorizedIdentities admits any identity, as in sig. */
export function isIdentityAuthorized(policy: FilePolicy, identity: string): boolean {
  const patterns = policy.authorizedIdentities;
  if (patterns === undefined || patterns.length === 0) return true;
  return patterns.some((pattern) => matchesIdentityPattern(pattern, identity));
}

function posixDirname(path: string): string {
  const trimmed = path.length > 1 && path.endsWith("/") ? path.replace(/\/+$/, "") : path;
  const slash = trimmed.lastIndexOf("/");
  if (slash === -1) return ".";
  if (slash === 0) return "/";
  return trimmed.slice(0, slash);
}

/** `*`-only wildcard match, linear in the name length per segment (no regex backtracking). */
function matchesWildcard(pattern: string, name: string): boolean {
  const parts = pattern.split("*");
  const first = parts[0] ?? "";
  const last = parts[parts.length - 1] ?? "";
  if (name.length < first.length + last.length) return false;
  if (!name.startsWith(first) || !name.endsWith(last)) return false;
  let at = first.length;
  const end = name.length - last.length;
  for (let i = 1; i < parts.length - 1; i++) {
    const part = parts[i] ?? "";
    const found = name.indexOf(part, at);
    if (found === -1 || found + part.length > end) return false;
    at = found + part.length;
  }
  return true;
}
