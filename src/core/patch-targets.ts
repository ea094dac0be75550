/**
 * The files an `apply_patch` input touches, read from its headers
 * (`*** Add File:`, `*** Update File:`, `*** Delete File:`, `*** Move to:`) and from unified-diff
 * headers (`--- a/x`, `+++ b/x`). A patch is gated by every file it names.
 */
export function patchTargets(patch: string): string[] {
  const targets = new Set<string>();
  for (const rawLine of patch.split(/\r?\n/)) {
    const line = rawLine.trimEnd();
    const own = /^\*\*\* (?:Add File|Update File|Delete File|Move to): (.+)$/.exec(line);
    if (own?.[1]) {
      targets.add(own[1].trim());
      continue;
    }
    const unified = /^(?:---|\+\+\+) (?:[ab]\/)?(.+?)(?:\t.*)?$/.exec(line);
    if (unified?.[1] && unified[1] !== "/dev/null") targets.add(unified[1].trim());
  }
  return [...targets];
}
