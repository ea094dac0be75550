import { createHmac, hash } from "node:crypto";
import { finishOuter, stateAfterBlock } from "./hmac-outer.js";

/** Secrets shorter than HMAC-SHA256's output would weaken it; longer ones add nothing. */
export const KEY_BYTES = 32;
export const KEY_ID_PATTERN = /^[A-Za-z0-9_-]{1,32}$/;

export type RandomBytes = (n: number) => Uint8Array;

export class KeyRingError extends Error {
  override readonly name = "KeyRingError";
}

interface KeyEntry {
  readonly id: string;
  readonly secret: Buffer;
  readonly created: string;
  /** RFC 2104's padded inner key (block size 64), precomputed for the one-shot path. */
  readonly innerPad: Buffer;
  /** SHA-256 state after the padded outer key: the outer hash is then one block. */
  readonly afterOuterPad: Int32Array;
}

/** SHA-256 block size: where HMAC's padded keys end and its message begins. */
export const HMAC_HEADROOM = 64;

/**
 * The MAC keys of one gateway: several active keys so envelopes signed before a rotation still
 * verify, one of them current for signing. Secrets never leave this object except through
 * `exportKeys` (for the key file): not in `toString`, `toJSON`, `inspect` or any error message.
 */
export class KeyRing {
  private readonly entries = new Map<string, KeyEntry>();
  private current: string;

  private constructor(first: KeyEntry) {
    this.entries.set(first.id, first);
    this.current = first.id;
  }

  /** A ring with one fresh key: the seed's default (in memory only, new at every start). */
  static generate(random: RandomBytes, createdAt: string): KeyRing {
    return new KeyRing(newEntry(random, createdAt, new Set()));
  }

  static fromKeys(keys: readonly { id: string; secret: Uint8Array; created: string }[], current: string): KeyRing {
    const entries = new Map<string, KeyEntry>();
    for (const k of keys) {
      if (entries.has(k.id)) throw new KeyRingError(`key id ${JSON.stringify(k.id)} appears twice`);
      entries.set(k.id, checkedEntry(k));
    }
    const first = entries.get(current);
    if (first === undefined) throw new KeyRingError(`current key id ${JSON.stringify(current)} is not among the keys`);
    const ring = new KeyRing(first);
    for (const entry of entries.values()) ring.entries.set(entry.id, entry);
    ring.current = current;
    return ring;
  }

  get currentId(): string {
    return this.current;
  }

  get ids(): string[] {
    return [...this.entries.keys()];
  }

  has(id: string): boolean {
    return this.entries.has(id);
  }

  /** Adds a new key and makes it current; older keys keep verifying until retired. */
  rotate(random: RandomBytes, createdAt: string): string {
    const entry = newEntry(random, createdAt, new Set(this.entries.keys()));
    this.entries.set(entry.id, entry);
    this.current = entry.id;
    return entry.id;
  }

  retire(id: string): void {
    if (id === this.current) throw new KeyRingError("the current signing key cannot be retired; rotate first");
    if (!this.entries.delete(id)) throw new KeyRingError(`no key with id ${JSON.stringify(id)}`);
  }

  /** HMAC-SHA256 keyed with key `id`; undefined when the ring has no such key. */
  hmac(id: string): ReturnType<typeof createHmac> | undefined {
    const entry = this.entries.get(id);
    return entry === undefined ? undefined : createHmac("sha256", entry.secret);
  }

  /**
   * HMAC-SHA256 of `buf[HMAC_HEADROOM..]`, computed as RFC 2104 defines it: the inner hash one-shot
   * over the padded key and the message, the outer one finished from the padded outer key's state.
   * Cheaper than an Hmac object for the short messages most envelopes are. The caller leaves
   * HMAC_HEADROOM bytes free at the start of `buf`; they are overwritten and then zeroed. The MAC
   * goes into `out` (32 bytes) when given, else into a new Buffer.
   */
  macWithHeadroom(id: string, buf: Buffer, out: Buffer = Buffer.allocUnsafe(32)): Buffer | undefined {
    const entry = this.entries.get(id);
    if (entry === undefined) return undefined;
    entry.innerPad.copy(buf, 0);
    const inner = hash("sha256", buf, "binary");
    buf.fill(0, 0, HMAC_HEADROOM);
    return finishOuter(entry.afterOuterPad, inner, out);
  }

  /** A subkey for one purpose: HMAC(secret, label). Keeps the uses of one secret apart. */
  deriveKey(id: string, label: string): Buffer | undefined {
    const entry = this.entries.get(id);
    return entry === undefined ? undefined : createHmac("sha256", entry.secret).update(label, "utf8").digest();
  }

  /** For the key file only. */
  exportKeys(): { id: string; secret: Buffer; created: string }[] {
    return [...this.entries.values()].map((e) => ({ id: e.id, secret: Buffer.from(e.secret), created: e.created }));
  }

  toString(): string {
    return `KeyRing(current=${this.current}, ids=${this.ids.join(",")})`;
  }

  toJSON(): { current: string; ids: string[] } {
    return { current: this.current, ids: this.ids };
  }

  [Symbol.for("nodejs.util.inspect.custom")](): string {
    return this.toString();
  }
}

function pads(secret: Buffer): { innerPad: Buffer; afterOuterPad: Int32Array } {
  // RFC 2104: a key longer than the block is hashed first, a shorter one is zero-padded.
  const key = secret.length > HMAC_HEADROOM ? hash("sha256", secret, "buffer") : secret;
  const innerPad = Buffer.alloc(HMAC_HEADROOM, 0x36);
  const outerPad = Buffer.alloc(HMAC_HEADROOM, 0x5c);
  for (let i = 0; i < key.length; i++) {
    innerPad[i] = (innerPad[i] as number) ^ (key[i] as number);
    outerPad[i] = (outerPad[i] as number) ^ (key[i] as number);
  }
  const afterOuterPad = stateAfterBlock(outerPad);
  outerPad.fill(0);
  return { innerPad, afterOuterPad };
}

function newEntry(random: RandomBytes, created: string, taken: ReadonlySet<string>): KeyEntry {
  const secret = Buffer.from(random(KEY_BYTES));
  if (secret.length !== KEY_BYTES) throw new KeyRingError(`randomness source returned ${secret.length} bytes, not ${KEY_BYTES}`);
  for (;;) {
    const id = "k" + Buffer.from(random(4)).toString("hex");
    if (!taken.has(id)) return { id, secret, created, ...pads(secret) };
  }
}

function checkedEntry(k: { id: string; secret: Uint8Array; created: string }): KeyEntry {
  if (!KEY_ID_PATTERN.test(k.id)) throw new KeyRingError(`key id ${JSON.stringify(k.id)} must match ${KEY_ID_PATTERN.source}`);
  if (k.secret.length < KEY_BYTES) throw new KeyRingError(`key ${k.id}: secret has ${k.secret.length} bytes, at least ${KEY_BYTES} needed`);
  const secret = Buffer.from(k.secret);
  return { id: k.id, secret, created: k.created, ...pads(secret) };
}
