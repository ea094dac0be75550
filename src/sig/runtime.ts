import { randomUUID } from "node:crypto";
import type { KeyObject } from "node:crypto";
import { existsSync, realpathSync } from "node:fs";
import { isAbsolute, relative, resolve, sep } from "node:path";
import { z } from "zod";
import type { AuditSink } from "../core/audit-sink.js";
import type { ToolGate } from "../core/gate.js";
import { ContentStore } from "./content-store.js";
import { parsePublicKey } from "./ed25519.js";
import { readPrivateKeyFile } from "./key-files.js";
import { createMutationGate } from "./mutation-gate.js";
import type { MutationGate } from "./mutation-gate.js";
import { PathEscapeError, toPolicyPath } from "./project-path.js";
import { expandFileArguments } from "./file-globs.js";
import { RealPathResolver } from "./real-path.js";
import { restoreSignedFiles, type RestoredFile } from "./restore-signed.js";
import { parseSigRuntimeConfig, SigRuntimeConfigError } from "./runtime-config.js";
import type { SigRuntimeConfig, SigRuntimeConfigInput } from "./runtime-config.js";
import { SessionSecurityState } from "./session-security-state.js";
import { openSigContext } from "./sig-context.js";
import type { SigContext } from "./sig-context.js";
import { TemplateLoader } from "./template-loader.js";
import { updateAndSign } from "./update-and-sign.js";
import type { UpdateResult } from "./update-and-sign.js";
import { createVerificationGate } from "./verification-gate.js";
import { verifyFile } from "./verify-file.js";
import type { VerifyResult } from "./verify-file.js";
import { initWorkspace } from "./workspace-init.js";

export interface SigRuntimeOptions {
  readonly projectRoot: string;
  /** The guard's `sig` settings; parsed and defaulted here. */
  readonly config?: SigRuntimeConfigInput;
  /** Milliseconds since the epoch. */
  readonly clock: () => number;
  readonly audit?: AuditSink;
  readonly newTurnId?: () => string;
  /** Overrides the probe of the project's file system (tests, unusual mounts). */
  readonly caseInsensitive?: boolean;
  readonly homeDir?: string;
}

export interface BeginTurnOptions {
  /** The guard's own turn id, when it has one; a fresh UUID otherwise. */
  readonly turnId?: string;
  readonly senderIsOwner?: boolean | null;
  /** e.g. `owner:+1234567890:whatsapp`; the identity update_and_sign acts as. */
  readonly senderIdentity?: string;
}

export interface OwnerMessage {
  readonly sessionId: string;
  readonly channel: string;
  readonly messageId: string;
  readonly text: string;
  /** e.g. `owner:+1234567890:whatsapp`. */
  readonly identity: string;
  readonly metadata?: Readonly<Record<string, string>>;
}

export type VerifyToolResult =
  | {
      readonly mode: "templates";
      /** True when every signed file verified (and there was at least one). */
      readonly allVerified: boolean;
      /** True when this call unlocked the gated tools for the current turn. */
      readonly unlocked: boolean;
      readonly templates: readonly VerifyResult[];
      readonly error?: string;
    }
  | {
      readonly mode: "message";
      readonly verified: boolean;
      readonly id: string;
      readonly content?: string;
      readonly signedBy?: string;
      readonly signedAt?: string;
      readonly metadata?: Readonly<Record<string, string>>;
      readonly error?: string;
    }
  | { readonly mode: "error"; readonly error: string };

export type UpdateToolResult = UpdateResult | { readonly approved: false; readonly file: string | null; readonly error: string };

interface TurnState {
  readonly turnId: string;
  /** The id came from the guard, so gate calls must carry it. */
  readonly external: boolean;
  senderIsOwner: boolean | null;
  senderIdentity: string | undefined;
}

const verifyArgs = z.strictObject({ file: z.string().min(1).optional(), message: z.string().min(1).optional() });
const updateArgs = z.strictObject({
  file: z.string().min(1),
  content: z.string(),
  reason: z.string().min(1),
  sourceType: z.string(),
  sourceId: z.string().optional(),
});

/**
 * Prompt signing at run time, for the guard: turn state, the owner-message content stores, the
 * verification and mutation gates, and the two owner-only tools. One instance per project root.
 */
export class SigRuntime {
  readonly config: SigRuntimeConfig;
  readonly projectRoot: string;
  readonly verificationGate: ToolGate;
  readonly mutationGate: MutationGate;
  readonly templates: TemplateLoader;
  #ctx: SigContext;
  readonly #options: SigRuntimeOptions;
  readonly #security = new SessionSecurityState();
  readonly #turns = new Map<string, TurnState>();
  readonly #stores = new Map<string, ContentStore>();
  readonly #resolver: RealPathResolver;
  readonly #signingKey: KeyObject | undefined;
  readonly #publicKey: KeyObject | undefined;

  constructor(options: SigRuntimeOptions) {
    this.#options = options;
    this.config = parseSigRuntimeConfig(options.config);
    this.projectRoot = resolve(options.projectRoot);
    this.#publicKey = this.config.publicKey === undefined ? undefined : parsePublicKey(this.config.publicKey);
    let forbidden: string[] = [];
    if (this.config.signingKeyPath !== undefined) {
      const keyPath = realpathSync.native(resolve(this.config.signingKeyPath));
      const rel = relative(realpathSync.native(this.projectRoot), keyPath);
      if (rel === "" || !(rel === ".." || rel.startsWith(`..${sep}`) || isAbsolute(rel))) {
        throw new SigRuntimeConfigError("sig.signingKeyPath: the signing key must live outside the project root, where the agent's tools do not reach");
      }
      this.#signingKey = readPrivateKeyFile(keyPath);
      forbidden = [keyPath];
    }
    this.#ctx = this.#openContext();
    this.#resolver = new RealPathResolver(this.projectRoot, {
      ...(options.caseInsensitive !== undefined ? { caseInsensitive: options.caseInsensitive } : {}),
      ...(options.homeDir !== undefined ? { homeDir: options.homeDir } : {}),
    });
    this.templates = new TemplateLoader(() => this.#ctx, this.config.templatesDir);
    this.verificationGate = createVerificationGate({
      enforce: this.config.enforceVerification,
      gatedTools: this.config.gatedTools,
      isVerified: (sessionId, turnId) => {
        // When the guard supplied the turn id, a call from any other turn finds nothing verified,
        // even if this runtime missed the guard's next beginTurn.
        const turn = this.#turns.get(sessionId);
        return turn !== undefined && (!turn.external || turn.turnId === turnId) && this.isVerified(sessionId);
      },
      senderIsOwner: (sessionId) => this.#turns.get(sessionId)?.senderIsOwner ?? null,
    });
    this.mutationGate = createMutationGate({
      resolver: this.#resolver,
      config: () => this.#ctx.config,
      writeTools: this.config.writeTools,
      patchTools: this.config.patchTools,
      isSigned: (path) => existsSync(`${this.#ctx.store.sigDir}/sigs/${path}.sig.json`),
      signedFiles: () => this.#ctx.store.listSignedFiles(),
      forbiddenPaths: forbidden,
    });
  }

  /** Re-reads `.sig/config.json` (file policies, engines); call after the owner changes it. */
  reloadConfig(): void {
    this.#ctx = this.#openContext();
    this.templates.clearCache();
  }

  /** Starts a turn: a new turn id, verification reset. Returns the turn id. */
  beginTurn(sessionId: string, options: BeginTurnOptions = {}): string {
    const turnId = options.turnId ?? (this.#options.newTurnId ?? randomUUID)();
    this.#turns.set(sessionId, {
      turnId,
      external: options.turnId !== undefined,
      senderIsOwner: options.senderIsOwner ?? null,
      senderIdentity: options.senderIdentity,
    });
    this.#security.resetVerification(sessionId, turnId);
    return turnId;
  }

  /** Signs an owner message into the session's content store; returns `<sessionId>:<channel>:<messageId>`. */
  ingestOwnerMessage(message: OwnerMessage): string {
    const id = `${message.sessionId}:${message.channel}:${message.messageId}`;
    this.contentStore(message.sessionId).sign(message.text, {
      id,
      identity: message.identity,
      metadata: { ...(message.metadata ?? {}), channel: message.channel, messageId: message.messageId },
    });
    const turn = this.#turns.get(message.sessionId);
    if (turn !== undefined) {
      turn.senderIdentity ??= message.identity;
      turn.senderIsOwner ??= true;
    }
    return id;
  }

  contentStore(sessionId: string): ContentStore {
    let store = this.#stores.get(sessionId);
    if (store === undefined) {
      store = new ContentStore(this.#options.clock);
      this.#stores.set(sessionId, store);
    }
    return store;
  }

  isVerified(sessionId: string): boolean {
    const turnId = this.#security.currentTurn(sessionId);
    return turnId !== undefined && this.#security.isVerified(sessionId, turnId);
  }

  /** The `verify` tool. With no arguments, a full pass over every signed file unlocks the turn. */
  verify(sessionId: string, args: unknown): VerifyToolResult {
    const notOwner = this.#ownerOnly(sessionId, "verify");
    if (notOwner !== undefined) return { mode: "error", error: notOwner };
    const parsed = verifyArgs.safeParse(args ?? {});
    if (!parsed.success) return { mode: "error", error: `verify: ${describe(parsed.error)}` };
    const { file, message } = parsed.data;
    if (file !== undefined && message !== undefined) return { mode: "error", error: "verify: give either file or message, not both" };
    if (message !== undefined) return this.#verifyMessage(sessionId, message);
    if (file !== undefined) {
      return { mode: "templates", allVerified: false, unlocked: false, templates: [this.#verifyOne(file)] };
    }
    const files = this.#filesToVerify();
    if (files.length === 0) {
      return { mode: "templates", allVerified: false, unlocked: false, templates: [], error: "No signed templates found" };
    }
    const templates = files.map((f) => this.#verifyOne(f));
    const allVerified = templates.every((t) => t.verified);
    const turnId = this.#security.currentTurn(sessionId);
    const unlocked = allVerified && turnId !== undefined && this.#security.setVerified(sessionId, turnId);
    return { mode: "templates", allVerified, unlocked, templates };
  }

  /** The `update_and_sign` tool, acting as the turn's sender and checking against the session's signed messages. */
  updateAndSign(sessionId: string, args: unknown): UpdateToolResult {
    const notOwner = this.#ownerOnly(sessionId, "update_and_sign");
    if (notOwner !== undefined) return { approved: false, file: null, error: notOwner };
    const parsed = updateArgs.safeParse(args);
    if (!parsed.success) return { approved: false, file: null, error: `update_and_sign: ${describe(parsed.error)}` };
    const a = parsed.data;
    const identity = this.#turns.get(sessionId)?.senderIdentity;
    if (identity === undefined || identity === "") {
      return { approved: false, file: a.file, error: "update_and_sign: the identity of this turn's sender is not known" };
    }
    try {
      return updateAndSign(this.#ctx, a.file, a.content, {
        identity,
        sourceType: a.sourceType,
        reason: a.reason,
        ...(a.sourceId !== undefined ? { sourceId: a.sourceId } : {}),
        ...(this.#stores.has(sessionId) ? { contentStore: this.contentStore(sessionId) } : {}),
      });
    } catch (error) {
      if (error instanceof PathEscapeError) return { approved: false, file: a.file, error: error.message };
      throw error;
    }
  }

  /**
   * After a tool call that may have changed files in ways no gate reads (a script, a program that
   * picks its own names): every signed file it changed gets its signed content back, what the call
   * left is kept under `keepDir`, and each is recorded in the audit log. `since`: when the call
   * began (ms), or null to hash every signed file.
   */
  restoreChangedFiles(since: number | null, keepDir: string): RestoredFile[] {
    if (!this.#ctx.store.hasSigDir()) return [];
    const restored = restoreSignedFiles(this.#ctx, since, keepDir, new Date(this.#options.clock()));
    for (const r of restored) {
      const kept = r.keptAt === null ? "" : `; what it left is kept at ${r.keptAt}`;
      const detail = r.restored ? `changed by a tool call; the signed content was restored${kept}` : `changed by a tool call and not restored: ${r.problem ?? "unknown"}${kept}`;
      this.#ctx.audit.log({ event: "modify", file: r.file, detail });
    }
    return restored;
  }

  /** Signs mutable-policy files that have no signature yet, as `workspace:init`. */
  initWorkspace(): string[] {
    return initWorkspace(this.#ctx);
  }

  /** Drops a session's turn state and signed messages. */
  endSession(sessionId: string): void {
    this.#turns.delete(sessionId);
    this.#stores.delete(sessionId);
    this.#security.forget(sessionId);
  }

  #openContext(): SigContext {
    return openSigContext(this.projectRoot, {
      clock: this.#options.clock,
      ...(this.#options.audit !== undefined ? { audit: this.#options.audit } : {}),
      ...(this.#publicKey !== undefined ? { publicKey: this.#publicKey } : {}),
      ...(this.#signingKey !== undefined ? { signingKey: this.#signingKey } : {}),
    });
  }

  /**
   * Every signed file, plus every file that should be signed: the templates directory and the
   * config's `sign.include`. Deleting a template's `.sig.json` must fail verification, not shrink it.
   */
  #filesToVerify(): string[] {
    const files = new Set(this.#ctx.store.listSignedFiles());
    const expected = [`${this.config.templatesDir}/**`, ...(this.#ctx.config.sign?.include ?? [])];
    for (const file of expandFileArguments(this.projectRoot, expected, this.#ctx.config.sign?.exclude ?? [])) {
      if (existsSync(file)) files.add(toPolicyPath(relative(this.projectRoot, file), sep));
    }
    return [...files].sort();
  }

  #ownerOnly(sessionId: string, tool: string): string | undefined {
    return this.#turns.get(sessionId)?.senderIsOwner === true ? undefined : `The ${tool} tool is available to the owner only.`;
  }

  #verifyOne(file: string): VerifyResult {
    try {
      return verifyFile(this.#ctx, file);
    } catch (error) {
      if (error instanceof PathEscapeError) return { verified: false, file, error: error.message };
      throw error;
    }
  }

  #verifyMessage(sessionId: string, id: string): VerifyToolResult {
    const result = this.#stores.get(sessionId)?.verify(id) ?? { verified: false as const, id, error: "No signature found for id" };
    if (!result.verified) return { mode: "message", verified: false, id, error: result.error };
    return {
      mode: "message",
      verified: true,
      id,
      content: result.content,
      signedBy: result.signature.signedBy,
      signedAt: result.signature.signedAt,
      ...(result.signature.metadata !== undefined ? { metadata: result.signature.metadata } : {}),
    };
  }
}

function describe(error: z.ZodError): string {
  const issue = error.issues[0];
  if (issue === undefined) return "invalid arguments";
  const key = issue.path.map(String).join(".");
  return key === "" ? issue.message : `${key}: ${issue.message}`;
}
