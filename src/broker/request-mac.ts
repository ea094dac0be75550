import { createHmac, timingSafeEqual } from "node:crypto";
import { goJsonArgs, goJsonEnv } from "./go-json.js";

/** The six fields the v3 MAC covers, in the order they are signed. */
export interface MacFields {
  readonly timestamp: string;
  readonly tool: string;
  readonly args: readonly string[] | null | undefined;
  readonly cwd: string;
  readonly env: Readonly<Record<string, string>> | null | undefined;
  readonly nonce: string;
}

export const MAC_BYTES = 32;

/** `timestamp \n tool \n args_json \n cwd \n env_json \n nonce`: the separators stop one field bleeding into the next. */
export function macMessage(f: MacFields): string {
  return `${f.timestamp}\n${f.tool}\n${goJsonArgs(f.args)}\n${f.cwd}\n${goJsonEnv(f.env)}\n${f.nonce}`;
}

export function computeMac(secret: Uint8Array, fields: MacFields): Buffer {
  return createHmac("sha256", secret).update(macMessage(fields), "utf8").digest();
}

export function signRequestMac(secret: Uint8Array, fields: MacFields): string {
  return computeMac(secret, fields).toString("base64");
}

// Exactly the canonical padded standard base64 of 32 bytes: 43 symbols, the last carrying only 4 bits,
// then one "=". Anything else (CR/LF, missing padding, URL alphabet, trailing bits set) is refused, so
// one MAC has one spelling.
const CANONICAL_MAC = /^[A-Za-z0-9+/]{42}[AEIMQUYcgkosw048]=$/;

/** Decodes a MAC only from its one canonical spelling; undefined for any other string. */
export function decodeMac(text: string): Buffer | undefined {
  if (!CANONICAL_MAC.test(text)) return undefined;
  return Buffer.from(text, "base64");
}

/** Constant-time check of `mac` against the MAC of `fields`. */
export function macMatches(secret: Uint8Array, fields: MacFields, mac: Buffer): boolean {
  const expected = computeMac(secret, fields);
  return mac.length === expected.length && timingSafeEqual(mac, expected);
}
