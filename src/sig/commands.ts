import { existsSync, mkdirSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { checkAllSigned, checkFile, verifyFile } from "./verify-file.js";
import type { CheckResult } from "./verify-file.js";
import { defaultKeyPath, findPublicKey, findSigningKey, writeNewKeyPair } from "./key-files.js";
import type { Env } from "./key-files.js";
import { expandFileArguments } from "./file-globs.js";
import { resolveFilePolicy } from "./file-policy.js";
import { PathEscapeError, resolveContainedPath, toPolicyPath } from "./project-path.js";
import { DEFAULT_SIG_CONFIG, SigConfigError } from "./sig-config.js";
import { SigningKeyError } from "./ed25519.js";
import type { FilePolicy, SigConfig } from "./sig-config.js";
import { openSigContext } from "./sig-context.js";
import type { SigContext } from "./sig-context.js";
import { SIG_DIR, SigStore } from "./sig-store.js";
import { FileNotFoundError, signFile } from "./sign-file.js";
import { TEMPLATE_ENGINE_NAMES, isTemplateEngine } from "./template-engines.js";
import type { TemplateEngine } from "./template-engines.js";
import { parseChain, validateChain } from "./update-chain.js";
import { updateAndSign } from "./update-and-sign.js";

/** What a command may touch of its process; tests give their own. */
export interface SigCommandIo {
  readonly cwd: string;
  readonly env: Env;
  readonly out: (line: string) => void;
  readonly err: (line: string) => void;
  readonly readStdin: () => Promise<string>;
  readonly clock: () => number;
}

export interface KeyOptions {
  readonly key?: string;
  readonly publicKey?: string;
}

/** sig's project root: the nearest ancestor with a `.sig/` directory, else the working directory. */
export function findProjectRoot(start: string): string {
  let dir = resolve(start);
  for (;;) {
    if (existsSync(join(dir, SIG_DIR))) return dir;
    const parent = dirname(dir);
    if (parent === dir) return resolve(start);
    dir = parent;
  }
}

function context(io: SigCommandIo, root: string, keys: KeyOptions, needs: { sign?: boolean; check?: boolean }): SigContext {
  const signingKey = needs.sign ? findSigningKey(keys.key, io.env, root) : undefined;
  const publicKey = needs.check ? findPublicKey(keys.publicKey, io.env) : undefined;
  return openSigContext(root, {
    clock: io.clock,
    ...(signingKey !== undefined ? { signingKey } : {}),
    ...(publicKey !== undefined ? { publicKey } : {}),
  });
}

/** Runs a command body, turning expected failures into a message and exit code 1. */
async function guarded(io: SigCommandIo, body: () => Promise<number> | number): Promise<number> {
  try {
    return await body();
  } catch (error) {
    if (
      error instanceof SigConfigError ||
      error instanceof SigningKeyError ||
      error instanceof PathEscapeError ||
      error instanceof FileNotFoundError
    ) {
      io.err(`error: ${error.message}`);
      return 1;
    }
    throw error;
  }
}

export function initCommand(io: SigCommandIo, options: { engine?: string; by?: string }): Promise<number> {
  return guarded(io, () => {
    let engine: TemplateEngine | TemplateEngine[] | undefined;
    if (options.engine !== undefined) {
      const names = options.engine.split(",").map((s) => s.trim());
      for (const name of names) {
        if (!isTemplateEngine(name)) {
          io.err(`Unknown template engine: ${name}`);
          io.err(`Available: ${TEMPLATE_ENGINE_NAMES.join(", ")}`);
          return 1;
        }
      }
      engine = names.length === 1 ? (names[0] as TemplateEngine) : (names as TemplateEngine[]);
    }
    const store = new SigStore(io.cwd);
    // Unlike sig, an existing config keeps its file policies and other settings.
    const existing: SigConfig = store.hasSigDir() ? store.loadConfig() : DEFAULT_SIG_CONFIG;
    const config: SigConfig = {
      ...existing,
      ...(engine !== undefined ? { templates: { ...existing.templates, engine } } : {}),
      ...(options.by !== undefined ? { sign: { ...existing.sign, identity: options.by } } : {}),
    };
    mkdirSync(join(store.sigDir, "sigs"), { recursive: true });
    store.saveConfig(config);
    io.out("Initialized .sig/ directory");
    const engines = config.templates?.engine;
    if (engines !== undefined) io.out(`Template engine(s): ${(typeof engines === "string" ? [engines] : engines).join(", ")}`);
    if (config.sign?.identity !== undefined) io.out(`Default identity: ${config.sign.identity}`);
    return 0;
  });
}

export function signCommand(io: SigCommandIo, patterns: readonly string[], options: { by?: string; engine?: string } & KeyOptions): Promise<number> {
  return guarded(io, () => {
    const root = findProjectRoot(io.cwd);
    const files = expandFileArguments(root, patterns);
    if (files.length === 0) {
      io.err("No files matched");
      return 1;
    }
    const ctx = context(io, root, options, { sign: true });
    const fallbackIdentity = io.env.USER ?? io.env.USERNAME;
    for (const file of files) {
      let sig;
      try {
        sig = signFile(ctx, relative(root, file), {
          ...(options.by !== undefined ? { identity: options.by } : {}),
          ...(options.engine !== undefined ? { engine: options.engine } : {}),
          ...(fallbackIdentity !== undefined ? { fallbackIdentity } : {}),
        });
      } catch (error) {
        if (error instanceof FileNotFoundError || error instanceof PathEscapeError) {
          io.err(`error: ${error.message}`);
          return 1;
        }
        throw error;
      }
      io.out(`signed ${sig.file} (${sig.hash.slice(0, 15)}... by ${sig.signedBy})${ctx.signingKey ? " +ed25519" : ""}`);
    }
    if (files.length > 1) {
      io.out("");
      io.out(`${files.length} files signed`);
    }
    return 0;
  });
}

export function verifyCommand(io: SigCommandIo, file: string, options: KeyOptions): Promise<number> {
  return guarded(io, () => {
    const root = findProjectRoot(io.cwd);
    const ctx = context(io, root, options, { check: true });
    let result;
    try {
      result = verifyFile(ctx, file);
    } catch (error) {
      if (!(error instanceof PathEscapeError)) throw error;
      io.err(`FAILED ${file}: ${error.message}`);
      return 1;
    }
    if (!result.verified) {
      io.err(`FAILED ${result.file}: ${result.error ?? "not verified"}`);
      return 1;
    }
    io.out(`verified ${result.file}`);
    io.out(`  hash:      ${result.hash ?? ""}`);
    io.out(`  signed by: ${result.signedBy ?? ""}`);
    io.out(`  signed at: ${result.signedAt ?? ""}`);
    if (result.placeholders?.length) io.out(`  placeholders: ${result.placeholders.join(", ")}`);
    if (result.chain) io.out(`  chain:     ${result.chain.length} update(s), last by ${result.chain.lastUpdatedBy ?? "?"}`);
    io.out("");
    io.out(result.template ?? "");
    return 0;
  });
}

const CHECK_LABEL: Readonly<Record<CheckResult["status"], string>> = {
  signed: "ok",
  modified: "MODIFIED",
  unsigned: "unsigned",
  corrupted: "CORRUPTED",
};

function checkLines(io: SigCommandIo, results: readonly CheckResult[], withSigner: boolean): boolean {
  let issues = false;
  for (const r of results) {
    const by = withSigner && r.signature ? ` (by ${r.signature.signedBy})` : "";
    const detail = r.status === "corrupted" && r.detail !== undefined ? ` (${r.detail})` : "";
    io.out(`  ${CHECK_LABEL[r.status]}  ${r.file}${by}${detail}`);
    if (r.status === "modified" || r.status === "corrupted") issues = true;
  }
  return issues;
}

/** Exit 1 when a file is modified (sig) or corrupted (stricter: sig lists those as unsigned and exits 0). */
export function checkCommand(io: SigCommandIo, patterns: readonly string[], options: KeyOptions): Promise<number> {
  return guarded(io, () => {
    const root = findProjectRoot(io.cwd);
    const ctx = context(io, root, options, { check: true });
    const results =
      patterns.length === 0
        ? checkAllSigned(ctx)
        : expandFileArguments(root, patterns).map((file) => checkFile(ctx, toPolicyPath(relative(root, file), sep)));
    if (results.length === 0) {
      io.out("No signed files found");
      return 0;
    }
    return checkLines(io, results, false) ? 1 : 0;
  });
}

export function listCommand(io: SigCommandIo, options: KeyOptions): Promise<number> {
  return guarded(io, () => {
    const ctx = context(io, findProjectRoot(io.cwd), options, { check: true });
    const results = checkAllSigned(ctx);
    if (results.length === 0) {
      io.out("No signed files");
      return 0;
    }
    checkLines(io, results, true);
    return 0;
  });
}

export function statusCommand(io: SigCommandIo, options: KeyOptions): Promise<number> {
  return guarded(io, () => {
    const root = findProjectRoot(io.cwd);
    const ctx = context(io, root, options, { check: true });
    const results = checkAllSigned(ctx);
    const count = (status: CheckResult["status"]): number => results.filter((r) => r.status === status).length;
    io.out(`${count("signed")} signed, ${count("modified")} modified`);
    if (count("corrupted") > 0) io.out(`${count("corrupted")} corrupted`);
    const include = ctx.config.sign?.include ?? [];
    if (include.length > 0) {
      const signed = new Set(results.map((r) => r.file));
      const unsigned = expandFileArguments(root, include, ctx.config.sign?.exclude ?? [])
        .map((f) => toPolicyPath(relative(root, f), sep))
        .filter((f) => !signed.has(f) && existsSync(join(root, f)));
      if (unsigned.length > 0) io.out(`${unsigned.length} unsigned (in include patterns)`);
    }
    return 0;
  });
}

export function auditCommand(io: SigCommandIo, file: string | undefined): Promise<number> {
  return guarded(io, () => {
    const ctx = openSigContext(findProjectRoot(io.cwd), { clock: io.clock });
    const entries = ctx.audit.read(file);
    if (entries.length === 0) {
      io.out(file !== undefined ? `No audit entries for ${file}` : "No audit entries");
      return 0;
    }
    for (const e of entries) {
      const parts = [e.ts, e.event.padEnd(12), e.file];
      if (e.identity) parts.push(`by ${e.identity}`);
      if (e.hash) parts.push(`${e.hash.slice(0, 15)}...`);
      if (e.detail) parts.push(e.detail);
      io.out(parts.join("  "));
    }
    return 0;
  });
}

export function updateCommand(
  io: SigCommandIo,
  file: string,
  options: { by: string; reason: string; sourceType: string; sourceId?: string } & KeyOptions,
): Promise<number> {
  return guarded(io, async () => {
    const root = findProjectRoot(io.cwd);
    const content = await io.readStdin();
    const ctx = context(io, root, options, { sign: true, check: true });
    let result;
    try {
      // No content store from the command line: a signed_message source cannot resolve here.
      result = updateAndSign(ctx, file, content, {
        identity: options.by,
        reason: options.reason,
        sourceType: options.sourceType,
        ...(options.sourceId !== undefined ? { sourceId: options.sourceId } : {}),
      });
    } catch (error) {
      if (!(error instanceof PathEscapeError)) throw error;
      io.err(`error: ${error.message}`);
      return 1;
    }
    if (!result.approved) {
      io.err(`DENIED ${result.file}: [${result.denial?.code ?? "denied"}] ${result.denial?.reason ?? ""}`);
      return 1;
    }
    io.out(`updated ${result.file}`);
    io.out(`  hash:          ${result.hash ?? ""}`);
    io.out(`  previousHash:  ${result.previousHash ?? ""}`);
    io.out(`  chainLength:   ${result.chainLength ?? 0}`);
    return 0;
  });
}

/** `--verify` also requires the chain to end at the signature head (sig checks links only). */
export function chainCommand(io: SigCommandIo, file: string, options: { verify?: boolean }): Promise<number> {
  return guarded(io, () => {
    const root = findProjectRoot(io.cwd);
    const rel = resolveContainedPath(root, file);
    const store = new SigStore(root);
    const parsed = parseChain(store.readChain(rel) ?? "");
    if (options.verify) {
      const loaded = store.loadSignature(rel);
      const result = validateChain(parsed, loaded.status === "found" ? loaded.signature.hash : undefined);
      if (result.length === 0 && result.valid) {
        io.out(`No update chain for ${rel}`);
        return 0;
      }
      if (loaded.status !== "found" && result.valid) {
        io.err(`Chain INVALID: ${rel} has an update chain but no valid signature`);
        return 1;
      }
      if (!result.valid) {
        io.err(`Chain INVALID: ${result.error ?? ""}`);
        return 1;
      }
      io.out(`Chain valid: ${result.length} entries`);
      return 0;
    }
    if (parsed.entries.length === 0) {
      io.out(`No update chain for ${rel}`);
      return parsed.ok ? 0 : 1;
    }
    io.out(`Update chain for ${rel} (${parsed.entries.length} entries):`);
    io.out("");
    parsed.entries.forEach((entry, i) => {
      io.out(`  #${i + 1}  ${entry.signedAt}  by ${entry.signedBy}`);
      io.out(`       hash: ${entry.hash.slice(0, 15)}...`);
      io.out(`       prev: ${entry.previousHash.slice(0, 15)}...`);
      io.out(`       reason: ${entry.provenance.reason}`);
      io.out(`       source: ${entry.provenance.sourceType}${entry.provenance.sourceId ? ` (${entry.provenance.sourceId})` : ""}`);
      io.out("");
    });
    return 0;
  });
}

function policyLines(io: SigCommandIo, policy: FilePolicy): void {
  io.out(`  mutable:              ${String(policy.mutable ?? false)}`);
  io.out(`  authorizedIdentities: ${policy.authorizedIdentities?.length ? policy.authorizedIdentities.join(", ") : "(none)"}`);
  io.out(`  requireSignedSource:  ${String(policy.requireSignedSource ?? false)}`);
  io.out(`  requireApproval:      ${String(policy.requireApproval ?? false)}`);
}

export function policyCommand(io: SigCommandIo, file: string | undefined): Promise<number> {
  return guarded(io, () => {
    const root = findProjectRoot(io.cwd);
    const config = new SigStore(root).loadConfig();
    if (file !== undefined) {
      const rel = resolveContainedPath(root, file);
      io.out(`Policy for ${rel}:`);
      policyLines(io, resolveFilePolicy(config, rel));
      return 0;
    }
    const entries = Object.entries(config.files ?? {});
    if (entries.length === 0) {
      io.out("No file policies configured");
      return 0;
    }
    for (const [pattern, policy] of entries) {
      io.out(`${pattern}:`);
      policyLines(io, policy);
      io.out("");
    }
    return 0;
  });
}

export function keygenCommand(io: SigCommandIo, options: { out?: string; force?: boolean }): Promise<number> {
  return guarded(io, () => {
    const keyPath = options.out !== undefined ? resolve(io.cwd, options.out) : defaultKeyPath(io.env);
    if (keyPath === undefined) {
      io.err("error: no default key location (HOME is not set); pass --out <path>");
      return 1;
    }
    const files = writeNewKeyPair(keyPath, findProjectRoot(io.cwd), options.force === true);
    io.out(`private key: ${files.keyPath} (mode 0600; keep it where the agent cannot read it)`);
    io.out(`public key:  ${files.publicKeyPath}`);
    io.out(files.publicKey);
    io.out(`Configure the public key for the runtime as sig.publicKey, or for check/verify with --public-key or PROVENANT_SIG_PUBLIC_KEY.`);
    return 0;
  });
}
