import { readdirSync, unlinkSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { writeFileAtomic } from "./atomic-file.js";
import { ensureDirDurable } from "./durable-dir.js";
import { readStateFile } from "./state-file-read.js";

/**
 * Held calls waiting for the owner, shared between the process that holds them (the MCP proxy)
 * and any front end the owner answers from (the `provenant approve` command, a console): files in
 * `<workspace>/.provenance/approvals/`, documented in docs/mcp.md.
 *
 * - `pending/<code>.json`: written only by the process that holds the call;
 * - `answers/<code>.json`: written only by the owner's front end.
 *
 * One writer per file, each write atomic (temporary file, fsync, rename), files 0600 in 0700
 * directories. An answer only names a code; the holding process applies it on the model's retry
 * of the exact call the code was issued for, so a forged answer file can approve nothing the
 * guard did not already hold for that same call.
 */
export const APPROVAL_STORE_VERSION = 1;

const CODE = /^[0-9a-f]{8}$/u;
const MAX_FILE_BYTES = 1024 * 1024;

const pendingSchema = z.strictObject({
  version: z.literal(APPROVAL_STORE_VERSION),
  code: z.string().regex(CODE),
  frontEnd: z.string().min(1).max(100),
  origin: z.string().max(200),
  sessionId: z.string().min(1).max(500),
  tool: z.string().min(1).max(500),
  call: z.string().max(100_000),
  reason: z.string().max(100_000),
  taint: z.enum(["trusted", "shared", "external", "untrusted"]),
  source: z.string().max(10_000).nullable(),
  createdAt: z.iso.datetime(),
  expiresAt: z.iso.datetime(),
  pid: z.int().positive(),
});
export type PendingApproval = z.infer<typeof pendingSchema>;

const answerSchema = z.strictObject({
  version: z.literal(APPROVAL_STORE_VERSION),
  code: z.string().regex(CODE),
  verdict: z.enum(["approve", "deny"]),
  minutes: z.int().min(1).max(1440).nullable(),
  answeredAt: z.iso.datetime(),
  by: z.string().min(1).max(100),
});
export type ApprovalAnswer = z.infer<typeof answerSchema>;

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
    return this.read(join(this.pendingDir, `${code}.json`), pendingSchema);
  }

  answerFor(code: string): ApprovalAnswer | null {
    if (!isApprovalCode(code)) return null;
    const answer = this.read(join(this.answersDir, `${code}.json`), answerSchema);
    return answer !== null && answer.code === code ? answer : null;
  }

  /** The owner's answer to a held call; refuses a code nothing holds, or one that expired. */
  answer(code: string, verdict: ApprovalAnswer["verdict"], options: { minutes: number | null; by: string; now: number }): PendingApproval {
    const normalised = code.trim().toLowerCase();
    if (!isApprovalCode(normalised)) throw new ApprovalStoreError(`${JSON.stringify(code)} is not an approval code (8 hexadecimal characters)`);
    const pending = this.pending(normalised);
    if (pending === null) throw new ApprovalStoreError(`no call is held with code ${normalised} (see 'provenant approvals')`);
    if (Date.parse(pending.expiresAt) <= options.now) throw new ApprovalStoreError(`code ${normalised} expired at ${pending.expiresAt}; the model's next try gets a new one`);
    const answer = answerSchema.parse({
      version: APPROVAL_STORE_VERSION,
      code: normalised,
      verdict,
      minutes: options.minutes,
      answeredAt: new Date(options.now).toISOString(),
      by: options.by,
    });
    ensureDirDurable(this.answersDir);
    writeFileAtomic(join(this.answersDir, `${normalised}.json`), `${JSON.stringify(answer, null, 2)}\n`);
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

  private read<T>(path: string, schema: z.ZodType<T>): T | null {
    const file = readStateFile(path, MAX_FILE_BYTES);
    if (file.kind === "missing") return null;
    if (file.kind === "bad") {
      this.onBadFile(path, file.detail);
      return null;
    }
    let value: unknown;
    try {
      value = JSON.parse(file.text);
    } catch (error) {
      this.onBadFile(path, `not JSON (${error instanceof Error ? error.message : String(error)})`);
      return null;
    }
    const parsed = schema.safeParse(value);
    if (!parsed.success) {
      this.onBadFile(path, `not an approval record: ${parsed.error.issues.map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`).join("; ")}`);
      return null;
    }
    return parsed.data;
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
