/**
 * An Edit tool's change, applied the way the tool applies it: `oldText` must occur exactly once
 * (or, with `replaceAll`, at least once). Computed when a blocked edit is staged, so the staged
 * record holds the full content the edit would have produced.
 */
export interface TextEdit {
  readonly oldText: string;
  readonly newText: string;
  readonly replaceAll?: boolean;
}

export class EditApplyError extends Error {
  constructor(readonly index: number, detail: string) {
    super(`edit ${index + 1}: ${detail}`);
    this.name = "EditApplyError";
  }
}

function occurrences(haystack: string, needle: string): number {
  let count = 0;
  for (let at = haystack.indexOf(needle); at !== -1; at = haystack.indexOf(needle, at + needle.length)) count += 1;
  return count;
}

export function applyEdits(current: string, edits: readonly TextEdit[]): string {
  if (edits.length === 0) throw new EditApplyError(0, "no edit given");
  let text = current;
  edits.forEach((edit, index) => {
    if (typeof edit.oldText !== "string" || typeof edit.newText !== "string") throw new EditApplyError(index, "oldText and newText must be strings");
    if (edit.oldText === "") throw new EditApplyError(index, "oldText is empty");
    const count = occurrences(text, edit.oldText);
    if (count === 0) throw new EditApplyError(index, "oldText does not occur in the file");
    if (edit.replaceAll === true) {
      text = text.split(edit.oldText).join(edit.newText);
    } else {
      if (count > 1) throw new EditApplyError(index, `oldText occurs ${count} times; it must be unique (or set replaceAll)`);
      const at = text.indexOf(edit.oldText);
      text = text.slice(0, at) + edit.newText + text.slice(at + edit.oldText.length);
    }
  });
  return text;
}
