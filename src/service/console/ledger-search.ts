import { readFileSync } from "node:fs";
import type { ChainEntry } from "../../ledger/index.js";
import { parseEntryLine } from "../../ledger/index.js";
import { chainFiles } from "../../ledger/ledger-log.js";

export interface LedgerHit {
  readonly index: number;
  readonly chain: number;
  readonly entry: ChainEntry;
}

export interface LedgerQuery {
  readonly session?: string;
  readonly tool?: string;
}

/** More than a page can show usefully; the newest are kept. */
export const MAX_HITS = 500;

function matches(data: Readonly<Record<string, unknown>>, query: LedgerQuery): boolean {
  const has = (key: string, value: string): boolean => Object.hasOwn(data, key) && data[key] === value;
  if (query.session !== undefined && !has("sessionId", query.session)) return false;
  // Decisions name the tool as `tool`; taint escalations name the tool that caused them as `by`.
  if (query.tool !== undefined && !has("tool", query.tool) && !has("by", query.tool)) return false;
  return true;
}

/**
 * Entries whose data names the session and/or the tool exactly, newest first, with their log
 * positions (for a proof). Lines that do not parse are skipped here; verification reports them.
 */
export function searchLedger(ledgerPath: string, query: LedgerQuery): { hits: LedgerHit[]; total: number } {
  const hits: LedgerHit[] = [];
  let index = 0;
  let total = 0;
  for (const ref of chainFiles(ledgerPath)) {
    const text = readFileSync(ref.file, "utf8");
    for (const line of text.split("\n")) {
      if (line === "") continue;
      const parsed = parseEntryLine(line);
      if (parsed.ok && matches(parsed.entry.data, query)) {
        total++;
        hits.push({ index, chain: ref.chain, entry: parsed.entry });
        if (hits.length > MAX_HITS) hits.shift();
      }
      index++;
    }
  }
  return { hits: hits.reverse(), total };
}
