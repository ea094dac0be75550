import { closeSync, fsyncSync, mkdirSync, openSync, readFileSync, writeSync } from "node:fs";
import { dirname } from "node:path";
import type { AuditRecordType, AuditSink } from "../core/audit-sink.js";
import type { UpdateProvenance } from "./update-chain.js";
import { isNotFound } from "./sig-store.js";

export type SigAuditEvent = "sign" | "verify" | "verify-fail" | "modify" | "delete" | "update" | "update_denied";

/** One line of `.sig/audit.jsonl` (sig's format). */
export interface SigAuditEntry {
  readonly ts: string;
  readonly event: SigAuditEvent;
  readonly file: string;
  readonly hash?: string;
  readonly identity?: string;
  readonly detail?: string;
  readonly provenance?: UpdateProvenance;
}

const LEDGER_TYPE: Readonly<Record<SigAuditEvent, AuditRecordType>> = {
  sign: "CLAIM",
  update: "CLAIM",
  modify: "CLAIM",
  verify: "VERIFY",
  "verify-fail": "VERIFY",
  update_denied: "VERIFY",
  delete: "RETRACT",
};

/**
 * Signing events go to sig's `.sig/audit.jsonl`, so `sig audit` keeps working, and to the
 * tamper-evident ledger through an AuditSink when one is given. The jsonl file is appended with
 * O_APPEND and fsync rather than rewritten: it only grows, and a torn last line is skipped on read.
 */
export class SigAuditLog {
  constructor(
    private readonly path: string,
    private readonly clock: () => number,
    private readonly sink?: AuditSink,
  ) {}

  /**
   * With a ledger attached, the ledger is the record that counts: a `.sig/audit.jsonl` that cannot
   * be written (a read-only `.sig/`) is reported there instead of failing the operation.
   */
  log(entry: Omit<SigAuditEntry, "ts">): void {
    const full: SigAuditEntry = { ts: new Date(this.clock()).toISOString(), ...entry };
    try {
      this.#append(JSON.stringify(full) + "\n");
    } catch (error) {
      if (this.sink === undefined) throw error;
      this.sink.record("META", { source: "sig", problem: "audit.jsonl not writable", code: (error as NodeJS.ErrnoException).code ?? "error" });
    }
    this.sink?.record(LEDGER_TYPE[entry.event], { source: "sig", ...full });
  }

  #append(line: string): void {
    mkdirSync(dirname(this.path), { recursive: true });
    const fd = openSync(this.path, "a", 0o644);
    try {
      writeSync(fd, line);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  }

  read(file?: string): SigAuditEntry[] {
    let text: string;
    try {
      text = readFileSync(this.path, "utf8");
    } catch (error) {
      if (isNotFound(error)) return [];
      throw error;
    }
    const entries: SigAuditEntry[] = [];
    for (const line of text.split("\n")) {
      if (line.trim() === "") continue;
      try {
        const value = JSON.parse(line) as SigAuditEntry;
        if (typeof value === "object" && value !== null && typeof value.event === "string" && typeof value.file === "string") {
          entries.push(value);
        }
      } catch {
        // A torn final line from a crash mid-append; the entries before it stand.
      }
    }
    return file === undefined ? entries : entries.filter((e) => e.file === file);
  }
}
