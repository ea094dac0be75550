import { createHmac, timingSafeEqual } from "node:crypto";
import { canonicalJSON } from "../ledger/canonical-json.js";
import type { KeyRing } from "./key-ring.js";

/** A tool result's seal: attached when the result is produced, checked before it is fed back. */
export interface ToolResultSeal {
  readonly seq: number;
  readonly keyId: string;
  /** HMAC-SHA256, lower-case hex. */
  readonly mac: string;
}

export type ToolResultCheck = "no-seal" | "unknown-key" | "bad-mac" | "reused-seq" | "not-json" | "bad-tool-name";

export type ToolResultVerification =
  | { readonly ok: true; readonly seq: number; /** seq is not the one after the last verified. */ readonly outOfOrder: boolean }
  | { readonly ok: false; readonly check: ToolResultCheck; readonly reason: string };

export const TOOL_RESULT_LABEL = "provenant/tool-result/v1";
const MAC_HEX = /^[0-9a-f]{64}$/;
const TOOL_NAME = /^[^|\u0000-\u001f]{1,256}$/;

/**
 * RFC-001's tool-result MAC, `HMAC(key, tool_name + "|" + seq + "|" + canonicalJSON(result))`,
 * exactly that message, under a key derived per session: HMAC(secret, label + NUL + sessionId).
 * The derived key keeps these MACs apart from message MACs and binds them to one session, which
 * the RFC's formula alone does not. `seq` counts from 1 per session, monotonic, with no gaps.
 */
export class ToolResultMacs {
  private readonly issued = new Map<string, number>();
  private readonly verified = new Map<string, Set<number>>();
  private readonly lastVerified = new Map<string, number>();
  private readonly subkeys = new Map<string, Buffer>();

  constructor(private readonly ring: KeyRing) {}

  /** Seals a result as it is produced. Throws if the result is not JSON (a bug in the caller). */
  seal(sessionId: string, tool: string, result: unknown): ToolResultSeal {
    if (!TOOL_NAME.test(tool)) throw new Error("tool name must be 1-256 characters without '|' or control characters");
    const seq = (this.issued.get(sessionId) ?? 0) + 1;
    const keyId = this.ring.currentId;
    const mac = this.compute(keyId, sessionId, tool, seq, canonicalJSON(result)) as Buffer;
    this.issued.set(sessionId, seq);
    return { seq, keyId, mac: mac.toString("hex") };
  }

  /** Checks a result before it is fed back; a result fails if unsealed, altered, or already fed back. */
  verify(sessionId: string, tool: string, result: unknown, seal: ToolResultSeal | undefined | null): ToolResultVerification {
    if (seal === undefined || seal === null) return { ok: false, check: "no-seal", reason: `result of ${tool} carries no MAC` };
    if (!TOOL_NAME.test(tool)) return { ok: false, check: "bad-tool-name", reason: "tool name is empty, too long, or holds '|'" };
    if (!Number.isSafeInteger(seal.seq) || seal.seq < 1) return { ok: false, check: "bad-mac", reason: "seq is not a positive integer" };
    let json: string;
    try {
      json = canonicalJSON(result);
    } catch (error) {
      return { ok: false, check: "not-json", reason: `result is not JSON: ${(error as Error).message}` };
    }
    const expected = this.compute(seal.keyId, sessionId, tool, seal.seq, json);
    if (expected === undefined) return { ok: false, check: "unknown-key", reason: `seal names key ${seal.keyId}, which is not active` };
    if (!MAC_HEX.test(seal.mac) || !timingSafeEqual(expected, Buffer.from(seal.mac, "hex"))) {
      return { ok: false, check: "bad-mac", reason: `MAC of ${tool} result #${seal.seq} does not match (altered, fabricated, or from another session)` };
    }
    const seen = this.verified.get(sessionId) ?? new Set<number>();
    if (seen.has(seal.seq)) return { ok: false, check: "reused-seq", reason: `result #${seal.seq} was already fed back` };
    seen.add(seal.seq);
    this.verified.set(sessionId, seen);
    const outOfOrder = seal.seq !== (this.lastVerified.get(sessionId) ?? 0) + 1;
    this.lastVerified.set(sessionId, Math.max(seal.seq, this.lastVerified.get(sessionId) ?? 0));
    return { ok: true, seq: seal.seq, outOfOrder };
  }

  /** Seqs of results that verified in this session: what a `[G:n]` claim may cite. */
  verifiedSeqs(sessionId: string): ReadonlySet<number> {
    return this.verified.get(sessionId) ?? new Set();
  }

  private compute(keyId: string, sessionId: string, tool: string, seq: number, json: string): Buffer | undefined {
    const cacheKey = keyId + "\u0000" + sessionId;
    let subkey = this.subkeys.get(cacheKey);
    if (subkey === undefined) {
      subkey = this.ring.deriveKey(keyId, TOOL_RESULT_LABEL + "\u0000" + sessionId);
      if (subkey === undefined) return undefined;
      this.subkeys.set(cacheKey, subkey);
    }
    return createHmac("sha256", subkey).update(`${tool}|${seq}|`, "utf8").update(json, "utf8").digest();
  }
}
