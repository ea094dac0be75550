import { readdirSync, unlinkSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { writeFileAtomic } from "./atomic-file.js";
import { ensureDirDurable } from "./durable-dir.js";
import { readStateFile } from "./state-file-read.js";

/**
 * Held calls waiting for the owner, shared between the process that holds them (the MCP proxy,
 * the Claude Code guard service, the OpenClaw gateway) and any front end the owner answers from
 * (the `provenant approve` command, a console): files in `<workspace>/.provenance/approvals/`,
 * documented in docs/state.md.
 *
 * - `pending/<code>.json`: written only by the process that holds the call;
 * - `answers/<code>.json`: written only by the owner's front end;
 * - `watchers/<pid>.json`: a console's presence (console-presence.ts).
 *
 * One writer per file, each write atomic (temporary file, fsync, rename), files 0600 in 0700
 * directories. An answer only names a code; the holding process applies it to the exact call the
 * code was issued for (guard-stored-answer.ts), so a forged answer file can approve nothing the
 * guard did not already hold for that same call.
 *
 * Version 2 adds each argument's provenance to the pending record and a scope to the answer.
 * Version 1 files (an older holder or front end still running) are read as version 2 says: no
 * argument provenance, and an approval without minutes is for the call. Only version 2 is written.
 */
export const APPROVAL_STORE_VERSION = 2;

const CODE = /^[0-9a-f]{8}$/u;
const MAX_FILE_BYTES = 1024 * 1024;
const TRUST = z.enum(["trusted", "shared", "external", "untrusted"]);

const argumentSourceSchema = z.strictObject({
  id: z.string().max(500),
  kind: z.enum(["owner", "message", "tool"]),
  tool: z.string().max(500).nullable(),
  trust: TRUST,
  how: z.enum(["owner-text", "field", "text"]),
});

const argumentSchema = z.strictObject({
  path: z.string().max(1000),
  role: z.string().max(500),
  value: z.string().max(1000),
  determined: z.boolean(),
  finding: z.string().max(10_000),
  sources: z.array(argumentSourceSchema).max(100),
});
export type PendingArgument = z.infer<typeof argumentSchema>;

/** Bounds of a pending record's `arguments`: a call with more is recorded with the first ones. */
export const MAX_PENDING_ARGUMENTS = 200;

const pendingFields = {
  code: z.string().regex(CODE),
  frontEnd: z.string().min(1).max(100),
  origin: z.string().max(200),
  sessionId: z.string().min(1).max(500),
  tool: z.string().min(1).max(500),
  call: z.string().max(100_000),
  reason: z.string().max(100_000),
  taint: TRUST,
  source: z.string().max(10_000).nullable(),
  createdAt: z.iso.datetime(),
  expiresAt: z.iso.datetime(),
  pid: z.int().positive(),
};

const pendingSchema = z.strictObject({
  version: z.literal(APPROVAL_STORE_VERSION),
  ...pendingFields,
  /** Each argument's provenance where argument provenance ran for the call, else null. */
  arguments: z.array(argumentSchema).max(MAX_PENDING_ARGUMENTS).nullable(),
  /** Until when the holder waits for an answer before it lets the call fail (null: it does not wait; the answer applies on a retry). */
  waitingUntil: z.iso.datetime().nullable(),
});
export type PendingApproval = z.infer<typeof pendingSchema>;

const pendingV1Schema = z.strictObject({ version: z.literal(1), ...pendingFields });

/** The scope of an approval: this call once, the tool for the rest of the holder's turn, or the tool for `minutes`. */
export type AnswerScope = "call" | "turn" | "minutes";

const answerSchema = z
  .strictObject({
    version: z.literal(APPROVAL_STORE_VERSION),
    code: z.string().regex(CODE),
    verdict: z.enum(["approve", "deny"]),
    scope: z.enum(["call", "turn", "minutes"]).nullable(),
    minutes: z.int().min(1).max(1440).nullable(),
    answeredAt: z.iso.datetime(),
    by: z.string().min(1).max(100),
  })
  .refine((a) => (a.verdict === "deny" ? a.scope === null && a.minutes === null : a.scope !== null && (a.scope === "minutes") === (a.minutes !== null)), {
    message: "an approval names its scope (minutes exactly when the scope is minutes); a denial names none",
  });
export type ApprovalAnswer = z.infer<typeof answerSchema>;

const answerV1Schema = z.strictObject({
  version: z.literal(1),
  code: z.string().regex(CODE),
  verdict: z.enum(["approve", "deny"]),
  minutes: z.int().min(1).max(1440).nullable(),
  answeredAt: z.iso.datetime(),
  by: z.string().min(1).max(100),
});

const pendingAnySchema = z.union([pendingSchema, pendingV1Schema.transform((v1): PendingApproval => ({ ...v1, version: APPROVAL_STORE_VERSION, arguments: null, waitingUntil: null }))]);
const answerAnySchema = z.union([
  answerSchema,
  answerV1Schema.transform(
    (v1): ApprovalAnswer => ({
      ...v1,
      version: APPROVAL_STORE_VERSION,
      scope: v1.verdict === "deny" ? null : v1.minutes === null ? "call" : "minutes",
      minutes: v1.verdict === "deny" ? null : v1.minutes,
    }),
  ),
]);

/**
 * A pending or answer file's text as the store reads it, for tests and tools: the record, or why
 * it is not one. Never throws.
 */
export function parseApprovalRecord(kind: "pending", text: string): { ok: true; record: PendingApproval } | { ok: false; detail: string };
export function parseApprovalRecord(kind: "answer", text: string): { ok: true; record: ApprovalAnswer } | { ok: false; detail: string };
export function parseApprovalRecord(kind: "pending" | "answer", text: string): { ok: true; record: PendingApproval | ApprovalAnswer } | { ok: false; detail: string } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { ok: false, detail: `not JSON (${error instanceof Error ? error.message : String(error)})` };
  }
  const parsed = kind === "pending" ? pendingAnySchema.safeParse(value) : answerAnySchema.safeParse(value);
  if (!parsed.success) {
    const version = value !== null && typeof value === "object" && !Array.isArray(value) ? (value as { version?: unknown }).version : undefined;
    if (version !== undefined && version !== 1 && version !== APPROVAL_STORE_VERSION) return { ok: false, detail: `approval store version ${JSON.stringify(version)} is not one this provenant reads (1 or ${APPROVAL_STORE_VERSION}); upgrade provenant` };
    return { ok: false, detail: `not an approval record: ${parsed.error.issues.map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`).join("; ")}` };
  }
  return { ok: true, record: parsed.data };
}

export class ApprovalStoreError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ApprovalStoreError";
  }
}

export interface PendingEntry {
  readonly pending: PendingApproval;
  readonly answer: ApprovalAnswer | null;
}

export function isApprovalCode(code: string): boolean {
  return CODE.test(code);
}

export class PendingApprovalStore {
  readonly dir: string;
  private readonly pendingDir: string;
  private readonly answersDir: string;

  constructor(workspaceDir: string, private readonly onBadFile: (file: string, detail: string) => void = () => undefined) {
    this.dir = join(workspaceDir, ".provenance", "approvals");
    this.pendingDir = join(this.dir, "pending");
    this.answersDir = join(this.dir, "answers");
  }

  /** Records a held call (or refreshes its record); done by the process that holds it. */
  hold(entry: PendingApproval): void {
    const checked = pendingSchema.parse(entry);
    ensureDirDurable(this.pendingDir);
    writeFileAtomic(join(this.pendingDir, `${checked.code}.json`), `${JSON.stringify(checked, null, 2)}\n`);
  }

  /** The calls held now (expired ones left out), each with the owner's answer if one was given. */
  list(now: number): PendingEntry[] {
    const out: PendingEntry[] = [];
    for (const name of listJson(this.pendingDir)) {
      const code = name.slice(0, -".json".length);
      if (!isApprovalCode(code)) continue;
      const pending = this.pending(code);
      if (pending === null || Date.parse(pending.expiresAt) <= now) continue;
      out.push({ pending, answer: this.answerFor(code) });
    }
    return out.sort((a, b) => a.pending.createdAt.localeCompare(b.pending.createdAt));
  }

  pending(code: string): PendingApproval | null {
    if (!isApprovalCode(code)) return null;
    const pending = this.read(join(this.pendingDir, `${code}.json`), "pending");
    return pending !== null && pending.code === code ? pending : null;
  }

  answerFor(code: string): ApprovalAnswer | null {
    if (!isApprovalCode(code)) return null;
    const answer = this.read(join(this.answersDir, `${code}.json`), "answer");
    return answer !== null && answer.code === code ? answer : null;
  }

  /**
   * The owner's answer to a held call; refuses a code nothing holds, or one that expired. The scope
   * of an approval is `scope`, else `minutes` when given, else this one call.
   */
  answer(code: string, verdict: ApprovalAnswer["verdict"], options: { scope?: AnswerScope; minutes: number | null; by: string; now: number }): PendingApproval {
    const normalised = code.trim().toLowerCase();
    if (!isApprovalCode(normalised)) throw new ApprovalStoreError(`${JSON.stringify(code)} is not an approval code (8 hexadecimal characters)`);
    const pending = this.pending(normalised);
    if (pending === null) throw new ApprovalStoreError(`no call is held with code ${normalised} (see 'provenant approvals')`);
    if (Date.parse(pending.expiresAt) <= options.now) throw new ApprovalStoreError(`code ${normalised} expired at ${pending.expiresAt}; the model's next try gets a new one`);
    const scope = verdict === "deny" ? null : (options.scope ?? (options.minutes === null ? "call" : "minutes"));
    const checked = answerSchema.safeParse({
      version: APPROVAL_STORE_VERSION,
      code: normalised,
      verdict,
      scope,
      minutes: verdict === "deny" ? null : options.minutes,
      answeredAt: new Date(options.now).toISOString(),
      by: options.by,
    });
    if (!checked.success) throw new ApprovalStoreError(`not an answer the store takes: ${checked.error.issues.map((i) => i.message).join("; ")}`);
    ensureDirDurable(this.answersDir);
    writeFileAtomic(join(this.answersDir, `${normalised}.json`), `${JSON.stringify(checked.data, null, 2)}\n`);
    return pending;
  }

  /** The held call was answered and applied, or is gone: both its files go. */
  remove(code: string): void {
    if (!isApprovalCode(code)) return;
    unlinkIfPresent(join(this.pendingDir, `${code}.json`));
    unlinkIfPresent(join(this.answersDir, `${code}.json`));
  }

  /** Drops expired records of one holder (`pid`), so a long-running proxy leaves no litter. */
  sweep(pid: number, now: number): void {
    for (const name of listJson(this.pendingDir)) {
      const code = name.slice(0, -".json".length);
      const pending = this.pending(code);
      if (pending !== null && pending.pid === pid && Date.parse(pending.expiresAt) <= now) this.remove(code);
    }
  }

  private read(path: string, kind: "pending"): PendingApproval | null;
  private read(path: string, kind: "answer"): ApprovalAnswer | null;
  private read(path: string, kind: "pending" | "answer"): PendingApproval | ApprovalAnswer | null {
    const file = readStateFile(path, MAX_FILE_BYTES);
    if (file.kind === "missing") return null;
    if (file.kind === "bad") {
      this.onBadFile(path, file.detail);
      return null;
    }
    const parsed = kind === "pending" ? parseApprovalRecord("pending", file.text) : parseApprovalRecord("answer", file.text);
    if (!parsed.ok) {
      this.onBadFile(path, parsed.detail);
      return null;
    }
    return parsed.record;
  }
}

function listJson(dir: string): string[] {
  try {
    return readdirSync(dir).filter((name) => name.endsWith(".json"));
  } catch (error) {
    if (error instanceof Error && "code" in error && error.code === "ENOENT") return [];
    throw error;
  }
}

function unlinkIfPresent(path: string): void {
  try {
    unlinkSync(path);
  } catch (error) {
    if (!(error instanceof Error && "code" in error && error.code === "ENOENT")) throw error;
  }
}
