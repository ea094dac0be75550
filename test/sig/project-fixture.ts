import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { AuditRecordType, AuditSink } from "../../src/core/audit-sink.js";
import { openSigContext } from "../../src/sig/sig-context.js";
import type { OpenSigContextOptions, SigContext } from "../../src/sig/sig-context.js";

/** A throwaway project directory on the real file system. */
export class ProjectFixture {
  readonly root: string;

  constructor(prefix = "provenant-sig-") {
    this.root = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  }

  write(path: string, content: string | Uint8Array): string {
    const full = join(this.root, path);
    mkdirSync(dirname(full), { recursive: true });
    writeFileSync(full, content);
    return full;
  }

  config(value: unknown): void {
    this.write(".sig/config.json", JSON.stringify(value, null, 2) + "\n");
  }

  path(rel: string): string {
    return join(this.root, rel);
  }

  context(options: Partial<OpenSigContextOptions> = {}): SigContext {
    return openSigContext(this.root, { clock: fixedClock(), ...options });
  }

  remove(): void {
    rmSync(this.root, { recursive: true, force: true });
  }
}

/** A clock that ticks one second per reading from 2026-01-01, so timestamps are distinct and repeatable. */
export function fixedClock(start = Date.UTC(2026, 0, 1)): () => number {
  let now = start;
  return () => {
    const t = now;
    now += 1000;
    return t;
  };
}

export class RecordingSink implements AuditSink {
  readonly records: { type: AuditRecordType; data: Readonly<Record<string, unknown>> }[] = [];
  record(type: AuditRecordType, data: Readonly<Record<string, unknown>>): void {
    this.records.push({ type, data });
  }
}

export const SOUL_POLICY_CONFIG = {
  version: 1,
  templates: { engine: "jinja" },
  files: {
    "llm/prompts/*.txt": { mutable: false },
    "soul.md": { mutable: true, authorizedIdentities: ["owner:*"], requireSignedSource: true },
    "agents.md": { mutable: true },
  },
};
