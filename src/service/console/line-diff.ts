/** One line of a diff: kept, removed from the file as it is, or added by the staged content. */
export interface DiffLine {
  readonly op: "same" | "del" | "add";
  readonly text: string;
  /** Line number in the current file (same, del) or in the staged content (add), from 1. */
  readonly line: number;
}

/**
 * Above this many cells the middle of the diff (after the common head and tail) is shown as
 * removed-then-added instead of aligned: the table is quadratic, and an owner reviewing a rewrite
 * that large reads the new content anyway.
 */
export const MAX_ALIGN_CELLS = 4_000_000;

function splitLines(text: string): string[] {
  if (text === "") return [];
  const lines = text.split("\n");
  // A trailing newline ends the last line; it does not start another.
  if (lines[lines.length - 1] === "") lines.pop();
  return lines;
}

/** A line diff of `before` (the file now; null when it does not exist) against `after` (staged). */
export function lineDiff(before: string | null, after: string): DiffLine[] {
  const a = splitLines(before ?? "");
  const b = splitLines(after);
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  const out: DiffLine[] = [];
  for (let i = 0; i < head; i++) out.push({ op: "same", text: a[i] as string, line: i + 1 });
  const midA = a.slice(head, a.length - tail);
  const midB = b.slice(head, b.length - tail);
  for (const d of alignMiddle(midA, midB)) out.push({ ...d, line: d.line + head });
  for (let i = a.length - tail; i < a.length; i++) out.push({ op: "same", text: a[i] as string, line: i + 1 });
  return out;
}

/** Longest common subsequence alignment, lines numbered from 1 within the middle. */
function alignMiddle(a: readonly string[], b: readonly string[]): DiffLine[] {
  const n = a.length;
  const m = b.length;
  if (n * m > MAX_ALIGN_CELLS || n === 0 || m === 0) {
    return [...a.map((text, i) => ({ op: "del" as const, text, line: i + 1 })), ...b.map((text, j) => ({ op: "add" as const, text, line: j + 1 }))];
  }
  // lcs[i][j]: length of the LCS of a[i..] and b[j..], in one flat array.
  const width = m + 1;
  const lcs = new Uint32Array((n + 1) * width);
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      lcs[i * width + j] = a[i] === b[j] ? (lcs[(i + 1) * width + j + 1] as number) + 1 : Math.max(lcs[(i + 1) * width + j] as number, lcs[i * width + j + 1] as number);
    }
  }
  const out: DiffLine[] = [];
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (a[i] === b[j]) {
      out.push({ op: "same", text: a[i] as string, line: i + 1 });
      i++;
      j++;
    } else if ((lcs[(i + 1) * width + j] as number) >= (lcs[i * width + j + 1] as number)) {
      out.push({ op: "del", text: a[i] as string, line: i + 1 });
      i++;
    } else {
      out.push({ op: "add", text: b[j] as string, line: j + 1 });
      j++;
    }
  }
  for (; i < n; i++) out.push({ op: "del", text: a[i] as string, line: i + 1 });
  for (; j < m; j++) out.push({ op: "add", text: b[j] as string, line: j + 1 });
  return out;
}
