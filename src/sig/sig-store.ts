import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, realpathSync, statSync, unlinkSync } from "node:fs";
import { dirname, isAbsolute, join, relative, sep } from "node:path";
import { writeFileAtomic } from "../state/atomic-file.js";
import { DEFAULT_SIG_CONFIG, parseSigConfig, serializeSigConfig } from "./sig-config.js";
import type { SigConfig } from "./sig-config.js";
import { parseSignature, serializeSignature } from "./signature.js";
import type { Signature } from "./signature.js";
import { parseDetached, serializeDetached } from "./ed25519.js";
import type { DetachedSignature } from "./ed25519.js";
import { PathEscapeError, toPolicyPath } from "./project-path.js";

export const SIG_DIR = ".sig";
const SIGS = "sigs";
const CHAINS = "chains";
const SIG_EXT = ".sig.json";
const CONTENT_EXT = ".sig.content";
const DETACHED_EXT = ".sig.ed25519";
const CHAIN_EXT = ".chain.jsonl";
const SIG_FILE_MODE = 0o644;

export type LoadedSignature =
  | { readonly status: "found"; readonly signature: Signature; readonly raw: string }
  | { readonly status: "not-found" }
  | { readonly status: "corrupted"; readonly problem: string };

/**
 * The `.sig/` directory on disk, in sig's layout. Paths given to it are already contained,
 * `/`-separated project paths (project-path.ts); every write is atomic.
 */
export class SigStore {
  readonly sigDir: string;

  constructor(readonly projectRoot: string) {
    this.sigDir = join(projectRoot, SIG_DIR);
  }

  get configPath(): string {
    return join(this.sigDir, "config.json");
  }

  get auditPath(): string {
    return join(this.sigDir, "audit.jsonl");
  }

  hasSigDir(): boolean {
    return existsSync(this.sigDir);
  }

  loadConfig(): SigConfig {
    let text: string;
    try {
      text = readFileSync(this.configPath, "utf8");
    } catch (error) {
      if (isNotFound(error)) return DEFAULT_SIG_CONFIG;
      throw error;
    }
    return parseSigConfig(text);
  }

  saveConfig(config: SigConfig): void {
    mkdirSync(join(this.sigDir, SIGS), { recursive: true });
    writeFileAtomic(this.configPath, serializeSigConfig(config), SIG_FILE_MODE);
  }

  loadSignature(file: string): LoadedSignature {
    let raw: string;
    try {
      raw = readFileSync(this.#sigPath(file, SIG_EXT), "utf8");
    } catch (error) {
      if (isNotFound(error)) return { status: "not-found" };
      return { status: "corrupted", problem: "unreadable" };
    }
    const parsed = parseSignature(raw, file);
    return parsed.ok ? { status: "found", signature: parsed.signature, raw } : { status: "corrupted", problem: parsed.problem };
  }

  /** The text stored beside the signature at signing time, or undefined when there is none. */
  loadSignedContent(file: string): Buffer | undefined {
    return readOptional(this.#sigPath(file, CONTENT_EXT));
  }

  loadDetached(file: string): DetachedSignature | "missing" | "corrupted" {
    const bytes = readOptional(this.#sigPath(file, DETACHED_EXT));
    if (bytes === undefined) return "missing";
    return parseDetached(bytes.toString("utf8")) ?? "corrupted";
  }

  /** Writes `.sig.json` and `.sig.content`, and the Ed25519 sidecar or removes a stale one. */
  storeSignature(sig: Signature, content: Uint8Array, detached: (sigJson: string) => DetachedSignature | undefined): void {
    const sigJson = serializeSignature(sig);
    const metaPath = this.#sigPath(sig.file, SIG_EXT);
    mkdirSync(dirname(metaPath), { recursive: true });
    writeFileAtomic(this.#sigPath(sig.file, CONTENT_EXT), content, SIG_FILE_MODE);
    writeFileAtomic(metaPath, sigJson, SIG_FILE_MODE);
    const signed = detached(sigJson);
    const detachedPath = this.#sigPath(sig.file, DETACHED_EXT);
    if (signed !== undefined) writeFileAtomic(detachedPath, serializeDetached(signed), SIG_FILE_MODE);
    else if (existsSync(detachedPath)) unlinkSync(detachedPath);
  }

  readProjectFile(file: string): Buffer | undefined {
    return readOptional(join(this.projectRoot, file));
  }

  /**
   * Replaces a project file atomically, keeping its permission bits. The directory it lands in
   * must really be inside the project: a symlinked directory cannot carry the write elsewhere (nor
   * the directories made for it). A link at the file's own name is replaced, not followed.
   */
  writeProjectFile(file: string, content: string | Uint8Array): void {
    const path = join(this.projectRoot, file);
    const root = realpathSync.native(this.projectRoot);
    const inside = (dir: string): boolean => {
      const rel = relative(root, realpathSync.native(dir));
      return !(rel === ".." || rel.startsWith(`..${sep}`) || isAbsolute(rel));
    };
    let existing = dirname(path);
    while (!existsSync(existing) && existing !== dirname(existing)) existing = dirname(existing);
    if (!inside(existing)) throw new PathEscapeError(file);
    mkdirSync(dirname(path), { recursive: true });
    if (!inside(dirname(path))) throw new PathEscapeError(file);
    let mode = SIG_FILE_MODE;
    try {
      const found = lstatSync(path);
      if (found.isFile()) mode = found.mode & 0o777;
    } catch (error) {
      if (!isNotFound(error)) throw error;
    }
    writeFileAtomic(path, content, mode);
  }

  readChain(file: string): string | undefined {
    return readOptional(this.#chainPath(file))?.toString("utf8");
  }

  writeChain(file: string, text: string): void {
    const path = this.#chainPath(file);
    mkdirSync(dirname(path), { recursive: true });
    writeFileAtomic(path, text, SIG_FILE_MODE);
  }

  /** Every `.sig.json` under `.sig/sigs/`, as the project path it signs. Symlinked dirs are not followed. */
  listSignedFiles(): string[] {
    const root = join(this.sigDir, SIGS);
    const out: string[] = [];
    const walk = (dir: string): void => {
      let entries;
      try {
        entries = readdirSync(dir, { withFileTypes: true });
      } catch (error) {
        if (isNotFound(error)) return;
        throw error;
      }
      entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      for (const entry of entries) {
        const full = join(dir, entry.name);
        if (entry.isDirectory()) walk(full);
        else if (entry.isFile() && entry.name.endsWith(SIG_EXT)) {
          out.push(toPolicyPath(relative(root, full), sep).slice(0, -SIG_EXT.length));
        }
      }
    };
    walk(root);
    return out;
  }

  #sigPath(file: string, ext: string): string {
    return join(this.sigDir, SIGS, file + ext);
  }

  #chainPath(file: string): string {
    return join(this.sigDir, CHAINS, file + CHAIN_EXT);
  }
}

function readOptional(path: string): Buffer | undefined {
  try {
    // A stat that reports absence is ~15x cheaper than a read that throws ENOENT, and most
    // files have no chain or sidecar; a file vanishing after the stat still reads as absent below.
    if (statSync(path, { throwIfNoEntry: false }) === undefined) return undefined;
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw error;
  }
  try {
    return readFileSync(path);
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw error;
  }
}

export function isNotFound(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  return code === "ENOENT" || code === "ENOTDIR" || code === "EISDIR";
}
