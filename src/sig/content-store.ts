import { contentLength, hashContent } from "./hash.js";

/** sig's signature for runtime content such as an owner's chat message. */
export interface ContentSignature {
  readonly id: string;
  readonly hash: string;
  readonly algorithm: "sha256";
  readonly signedBy: string;
  readonly signedAt: string;
  readonly contentLength: number;
  readonly metadata?: Readonly<Record<string, string>>;
}

export interface SignContentOptions {
  readonly id: string;
  readonly identity: string;
  readonly metadata?: Readonly<Record<string, string>>;
}

export type ContentVerifyResult =
  | { readonly verified: true; readonly id: string; readonly content: string; readonly signature: ContentSignature }
  | { readonly verified: false; readonly id: string; readonly error: string };

/**
 * Session-scoped, in-memory store of signed content (sig's ContentStore). Entries are frozen
 * copies so nothing outside can change a signature after the fact; `verify` re-hashes the text.
 */
export class ContentStore {
  readonly #signatures = new Map<string, ContentSignature>();
  readonly #contents = new Map<string, string>();

  constructor(private readonly clock: () => number) {}

  sign(content: string, options: SignContentOptions): ContentSignature {
    const signature: ContentSignature = Object.freeze({
      id: options.id,
      hash: hashContent(content),
      algorithm: "sha256",
      signedBy: options.identity,
      signedAt: new Date(this.clock()).toISOString(),
      contentLength: contentLength(content),
      ...(options.metadata !== undefined ? { metadata: Object.freeze({ ...options.metadata }) } : {}),
    });
    this.#signatures.set(options.id, signature);
    this.#contents.set(options.id, content);
    return signature;
  }

  verify(id: string): ContentVerifyResult {
    const signature = this.#signatures.get(id);
    if (signature === undefined) return { verified: false, id, error: "No signature found for id" };
    const content = this.#contents.get(id);
    if (content === undefined) return { verified: false, id, error: "No content found for id" };
    if (hashContent(content) !== signature.hash) return { verified: false, id, error: "Content hash mismatch" };
    return { verified: true, id, content, signature };
  }

  get(id: string): ContentSignature | undefined {
    return this.#signatures.get(id);
  }

  list(): ContentSignature[] {
    return [...this.#signatures.values()];
  }

  has(id: string): boolean {
    return this.#signatures.has(id);
  }

  delete(id: string): boolean {
    this.#contents.delete(id);
    return this.#signatures.delete(id);
  }

  clear(): void {
    this.#signatures.clear();
    this.#contents.clear();
  }

  get size(): number {
    return this.#signatures.size;
  }
}
