/**
 * The look for the words of messages someone else wrote in a prompt file (core/foreign-words.ts),
 * made at each turn's start for every file the host put in the prompt while any such message is
 * kept. The file holds none of them (the common case, and the most work: nothing ends the look
 * early). Baseline in the same run: folding the file alone (what any comparison of its words
 * costs). Run: npx tsx bench/foreign-words.ts
 */
import { fold, ForeignWords, MAX_CHARS, MAX_MESSAGES } from "../src/core/foreign-words.js";
import { median, printTable, sampleMicros } from "./lib/stats.js";

const AT = "2026-12-03T10:00:00.000Z";

const OWNER_WORDS = ["meeting", "moved", "to", "three", "invoice", "paid", "remember", "the", "dentist", "on", "tuesday", "call", "back", "about", "parcel"];
const OTHER_WORDS = ["your", "account", "is", "held", "please", "confirm", "details", "kindly", "wire", "fee", "today", "regards", "support", "team", "urgent"];

/** Text of `chars` characters of `words`, different for each seed: the owner's notes, a forward. */
function prose(seed: number, chars: number, words = OWNER_WORDS): string {
  let out = "";
  for (let i = 0; out.length < chars; i++) out += `${words[(seed * 7 + i * 13) % words.length]}${(seed + i) % 9 === 0 ? `${seed}.` : ""} `;
  return out.slice(0, chars);
}

function store(messages: number, chars: number): ForeignWords {
  const words = new ForeignWords();
  for (let i = 0; i < messages; i++) words.record("s", "external", `forward ${i}: ${prose(i, chars, OTHER_WORDS)}`, AT);
  return words;
}

const cases: [string, ForeignWords, string][] = [
  ["MEMORY.md 20 KB, 10 forwards of 300 chars", store(10, 300), prose(1, 20_000)],
  ["MEMORY.md 20 KB, 1,024 forwards of 300 chars", store(MAX_MESSAGES, 300), prose(1, 20_000)],
  ["MEMORY.md 20 KB, 1,024 forwards of 4,096 chars (the most kept)", store(MAX_MESSAGES, MAX_CHARS), prose(1, 20_000)],
  ["a 1 MiB file, 10 forwards of 300 chars", store(10, 300), prose(1, 1 << 20)],
];
const rows: string[][] = [];
for (const [name, words, file] of cases) {
  const samples = file.length > 100_000 ? 20 : 200;
  const base = median(sampleMicros(() => fold(file), samples, 5));
  if (words.takeHits([{ path: "/ws/MEMORY.md", text: file }]).length > 0) throw new Error(`${name}: the file holds a forward`);
  const look = median(sampleMicros(() => words.takeHits([{ path: "/ws/MEMORY.md", text: file }]), samples, 5));
  rows.push([name, base.toFixed(0), look.toFixed(0), (look / base).toFixed(1)]);
}
printTable(["case (no forward in the file)", "fold the file, µs (baseline)", "look, µs", "× baseline"], rows);
