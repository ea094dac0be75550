import { z } from "zod";
import { KEY_BYTES, KEY_ID_PATTERN, KeyRing, KeyRingError } from "./key-ring.js";

export const KEY_FILE_FORMAT = "provenant-auth-keys";
export const KEY_FILE_VERSION = 1;

const keyFileSchema = z
  .object({
    format: z.literal(KEY_FILE_FORMAT),
    version: z.literal(KEY_FILE_VERSION),
    current: z.string().regex(KEY_ID_PATTERN),
    keys: z
      .array(
        z
          .object({
            id: z.string().regex(KEY_ID_PATTERN),
            secret: z.string().regex(/^[A-Za-z0-9_-]+$/),
            created: z.string(),
          })
          .strict(),
      )
      .min(1),
  })
  .strict();

export class KeyFileError extends Error {
  override readonly name = "KeyFileError";
}

/**
 * Parses a key file's text. Errors name the field that is wrong and never echo a value, since
 * the value may be a secret.
 */
export function parseKeyFile(text: string): KeyRing {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new KeyFileError("key file is not valid JSON");
  }
  const parsed = keyFileSchema.safeParse(json);
  if (!parsed.success) {
    const where = parsed.error.issues.map((i) => (i.path.length === 0 ? "(top level)" : i.path.join("."))).join(", ");
    throw new KeyFileError(`key file does not match format ${KEY_FILE_FORMAT} v${KEY_FILE_VERSION}: bad ${where}`);
  }
  const keys = parsed.data.keys.map((k) => {
    const secret = Buffer.from(k.secret, "base64url");
    if (secret.length < KEY_BYTES) throw new KeyFileError(`key ${k.id}: secret decodes to ${secret.length} bytes, at least ${KEY_BYTES} needed`);
    return { id: k.id, secret, created: k.created };
  });
  try {
    return KeyRing.fromKeys(keys, parsed.data.current);
  } catch (error) {
    if (error instanceof KeyRingError) throw new KeyFileError(error.message);
    throw error;
  }
}

export function serializeKeyFile(ring: KeyRing): string {
  const keys = ring.exportKeys().map((k) => ({ id: k.id, secret: k.secret.toString("base64url"), created: k.created }));
  return JSON.stringify({ format: KEY_FILE_FORMAT, version: KEY_FILE_VERSION, current: ring.currentId, keys }, null, 2) + "\n";
}
