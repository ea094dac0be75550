import { mkdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import type { Command } from "commander";
import type { AuditRecordType } from "../core/audit-sink.js";
import {
  CheckpointError,
  MAX_THREADS,
  type LogScan,
  type LogScanOptions,
  checkProofDocument,
  checkpointDir,
  checkpointViolation,
  consistencyProofDocument,
  currentCheckpoint,
  defaultCheckpointKeyPath,
  defaultLedgerPath,
  generateCheckpointKey,
  inclusionProofDocument,
  loadPublicKey,
  loadSigningKey,
  logOrigin,
  openCheckpoint,
  openLedger,
  publicKeyPathFor,
  readCheckpointFields,
  scanLog,
  signCheckpoint,
  verifierKey,
} from "../ledger/index.js";
import { writeFileAtomic } from "../state/atomic-file.js";
import { displayJson } from "../core/safe-display.js";

export interface LedgerCommandIo {
  readonly cwd: string;
  readonly env: NodeJS.ProcessEnv;
  out(text: string): void;
  err(text: string): void;
  /** Whether `err` is a terminal a progress bar can redraw on. */
  readonly errIsTTY: boolean;
  setExitCode(code: number): void;
}

function processIo(): LedgerCommandIo {
  return {
    cwd: process.cwd(),
    env: process.env,
    out: (text) => process.stdout.write(text),
    err: (text) => process.stderr.write(text),
    errIsTTY: process.stderr.isTTY === true,
    setExitCode: (code) => {
      process.exitCode = code;
    },
  };
}

/** A failure the user must hear about: printed as `provenant ledger <cmd>: <message>`, exit status `code`. */
class LedgerCommandError extends Error {
  constructor(
    message: string,
    readonly code: 1 | 2 = 1,
  ) {
    super(message);
  }
}

const APPEND_TYPES: readonly AuditRecordType[] = ["BOOT", "CLAIM", "VERIFY", "RETRACT", "META"];

interface Location {
  ledger?: string;
  workspace?: string;
}

/**
 * `provenant ledger ...`. Exit status: 0 when everything checked out, 1 when the ledger, a proof or
 * a checkpoint fails (the reason on stderr), 2 for unusable input.
 */
export function registerLedgerCommands(program: Command, makeIo: () => LedgerCommandIo = processIo): void {
  const ledger = program
    .command("ledger")
    .description("The tamper-evident ledger: RFC-001 hash chain, Merkle proofs, signed checkpoints.");

  const run =
    <A extends unknown[]>(name: string, body: (io: LedgerCommandIo, ...args: A) => void) =>
    (...args: A): void => {
      const io = makeIo();
      try {
        body(io, ...args);
      } catch (error) {
        const known = error instanceof LedgerCommandError || error instanceof CheckpointError || error instanceof RangeError;
        io.err(`provenant ledger ${name}: ${error instanceof Error ? error.message : String(error)}\n`);
        io.setExitCode(error instanceof LedgerCommandError ? error.code : known ? 2 : 1);
      }
    };

  const withLocation = (cmd: Command): Command =>
    cmd
      .option("--ledger <file>", "ledger file (default: <workspace>/.provenance/ledger.jsonl)")
      .option("--workspace <dir>", "workspace directory (default: the current directory)");

  withLocation(ledger.command("verify"))
    .description("Recompute every chain from genesis; with --from-checkpoint, also prove the ledger still extends it")
    .option("--from-checkpoint <file>", "a signed checkpoint the ledger must still be consistent with")
    .option("--pubkey <file>", "checkpoint public key (default: $PROVENANT_LEDGER_PUBKEY or the key beside the default signing key)")
    .option("--key-name <name>", "checkpoint key name (default: the ledger's origin)")
    .option("--no-progress", "no progress bar")
    .option("--threads <n>", `threads to verify on, 1 to ${MAX_THREADS} (default: the cores available, up to 8)`)
    .action(
      run("verify", (io, opts: Location & { fromCheckpoint?: string; pubkey?: string; keyName?: string; progress: boolean; threads?: string }) => {
        const path = ledgerPath(io, opts);
        const threads = opts.threads === undefined ? undefined : threadCount(opts.threads);
        const bar = opts.progress && io.errIsTTY ? progressBar(io) : undefined;
        const scan = scanOrFail(path, {
          tree: opts.fromCheckpoint !== undefined,
          ...(threads === undefined ? {} : { threads }),
          ...(bar === undefined ? {} : { onProgress: bar.update }),
        });
        bar?.done();
        requireIntact(scan, path);
        const head = `${scan.size} entries in ${scan.chains.length} chain${scan.chains.length === 1 ? "" : "s"}, head ${scan.lastHash ?? "-"}`;
        if (opts.fromCheckpoint === undefined) {
          io.out(`ok: ${head}\n`);
          return;
        }
        const keyName = opts.keyName ?? logOrigin(scan);
        const note = readText(opts.fromCheckpoint, "checkpoint");
        const checkpoint = openCheckpoint(note, keyName, loadPublicKey(publicKeyPath(io, opts.pubkey)));
        const violation = checkpointViolation(scan, checkpoint);
        if (violation !== undefined) throw new LedgerCommandError(`checkpoint ${opts.fromCheckpoint} (size ${checkpoint.size}): ${violation}`);
        io.out(`ok: ${head}; consistent with the checkpoint at size ${checkpoint.size}\n`);
      }),
    );

  withLocation(ledger.command("append"))
    .description("Append one entry and print where it went")
    .requiredOption("--type <type>", `entry type: ${APPEND_TYPES.join(", ")}`)
    .requiredOption("--data <json>", "entry data, a JSON object")
    .action(
      run("append", (io, opts: Location & { type: string; data: string }) => {
        const type = APPEND_TYPES.find((t) => t === opts.type);
        if (type === undefined) throw new LedgerCommandError(`--type must be one of ${APPEND_TYPES.join(", ")} (GENESIS is written by the ledger)`, 2);
        const data = parseJsonObject(opts.data, "--data");
        const ledgerFile = openLedger(ledgerPath(io, opts));
        try {
          const { index, chain, entry } = ledgerFile.append(type, data);
          io.out(`${displayJson({ index, chain, seq: entry.seq, hash: entry.hash })}\n`);
        } finally {
          ledgerFile.close();
        }
      }),
    );

  withLocation(ledger.command("show"))
    .description("Print the entry at a log position (the seq, until the first rotation)")
    .argument("<seq>", "position in the log, counted from 0 across all chains")
    .action(
      run("show", (io, seqText: string, opts: Location) => {
        const index = parseCount(seqText, "<seq>");
        const scan = scanOrFail(ledgerPath(io, opts), { entryAt: index });
        const found = scan.found ?? missingEntry(scan, index);
        // Entries hold what the model and tools sent; the JSON is the same, its bidi and C1 characters escaped.
        io.out(`${displayJson({ index: found.index, chain: found.chain, ...found.entry })}\n`);
      }),
    );

  withLocation(ledger.command("prove"))
    .description("Print an inclusion proof for the entry at a log position")
    .argument("<seq>", "position in the log, counted from 0 across all chains")
    .option("--size <n>", "tree size to prove against (default: the whole log, or the checkpoint's size)")
    .option("--checkpoint <file>", "embed this signed checkpoint and prove against its size")
    .option("--out <file>", "write the proof here instead of stdout")
    .action(
      run("prove", (io, seqText: string, opts: Location & { size?: string; checkpoint?: string; out?: string }) => {
        const index = parseCount(seqText, "<seq>");
        const note = opts.checkpoint === undefined ? undefined : readText(opts.checkpoint, "checkpoint");
        const scan = scanOrFail(ledgerPath(io, opts), { tree: true, entryAt: index });
        requireIntact(scan, ledgerPath(io, opts));
        if (scan.found === undefined) missingEntry(scan, index);
        const size = opts.size !== undefined ? parseCount(opts.size, "--size") : note !== undefined ? readCheckpointFields(note).size : scan.size;
        emit(io, opts.out, inclusionProofDocument(scan, index, size, note));
      }),
    );

  withLocation(ledger.command("consistency"))
    .description("Print a proof that the log at size <n> extends the log at size <m>")
    .argument("<m>", "older tree size")
    .argument("<n>", "newer tree size")
    .option("--checkpoint <files...>", "embed signed checkpoints for size m and/or n")
    .option("--out <file>", "write the proof here instead of stdout")
    .action(
      run("consistency", (io, mText: string, nText: string, opts: Location & { checkpoint?: string[]; out?: string }) => {
        const m = parseCount(mText, "<m>");
        const n = parseCount(nText, "<n>");
        if (m > n) throw new LedgerCommandError(`<m> (${m}) must not exceed <n> (${n})`, 2);
        const scan = scanOrFail(ledgerPath(io, opts), { tree: true });
        requireIntact(scan, ledgerPath(io, opts));
        const doc = consistencyProofDocument(scan, m, n);
        const embedded: { checkpoint1?: string; checkpoint2?: string } = {};
        for (const file of opts.checkpoint ?? []) {
          const note = readText(file, "checkpoint");
          const size = readCheckpointFields(note).size;
          if (size === m) embedded.checkpoint1 = note;
          else if (size === n) embedded.checkpoint2 = note;
          else throw new LedgerCommandError(`checkpoint ${file} is for size ${size}, neither ${m} nor ${n}`, 2);
        }
        emit(io, opts.out, { ...doc, ...embedded });
      }),
    );

  withLocation(ledger.command("checkpoint"))
    .description("Verify the whole log, then sign (origin, size, root) with the Ed25519 checkpoint key")
    .option("--key <file>", "signing key (default: $PROVENANT_LEDGER_KEY or ~/.config/provenant/ledger-checkpoint.key)")
    .option("--key-name <name>", "key name in the signature (default: the ledger's origin)")
    .option("--out <file>", "where to write it (default: <ledger dir>/checkpoints/<size>.checkpoint)")
    .action(
      run("checkpoint", (io, opts: Location & { key?: string; keyName?: string; out?: string }) => {
        const path = ledgerPath(io, opts);
        const key = loadSigningKey(signingKeyPath(io, opts.key), workspaceDir(io, opts));
        const scan = scanOrFail(path, { tree: true });
        requireIntact(scan, path);
        const note = signCheckpoint(currentCheckpoint(scan), opts.keyName ?? logOrigin(scan), key);
        const out = opts.out ?? join(checkpointDir(path), `${scan.size}.checkpoint`);
        mkdirFor(out);
        writeFileAtomic(out, note, 0o644);
        io.out(note);
        io.err(`wrote ${out}\n`);
      }),
    );

  ledger
    .command("check-proof")
    .description("Check an inclusion or consistency proof file on its own, without the ledger")
    .argument("<proof-file>", "a proof written by `ledger prove` or `ledger consistency`")
    .option("--pubkey <file>", "also require a signed checkpoint in the proof vouching for its root")
    .option("--key-name <name>", "checkpoint key name (default: the proof's origin)")
    .action(
      run("check-proof", (io, file: string, opts: { pubkey?: string; keyName?: string }) => {
        const doc = parseJson(readText(file, "proof"), file);
        const origin = typeof doc === "object" && doc !== null && "origin" in doc ? String(doc.origin) : "";
        const pubkey = opts.pubkey ?? io.env.PROVENANT_LEDGER_PUBKEY;
        const trust = pubkey === undefined ? undefined : { publicKey: loadPublicKey(pubkey), keyName: opts.keyName ?? origin };
        const result = checkProofDocument(doc, trust);
        if (!result.ok) throw new LedgerCommandError(`${file}: ${result.reason}`);
        io.out(`ok: ${result.summary}${trust === undefined ? " (root not checked against a signed checkpoint: no --pubkey)" : ", vouched for by a signed checkpoint"}\n`);
      }),
    );

  ledger
    .command("keygen")
    .description("Create the Ed25519 checkpoint key pair (private key mode 0600, kept outside any workspace)")
    .option("--key <file>", "where to put the private key (default: $PROVENANT_LEDGER_KEY or ~/.config/provenant/ledger-checkpoint.key)")
    .option("--key-name <name>", "key name for the printed verifier key", "provenant.local/ledger")
    .action(
      run("keygen", (io, opts: { key?: string; keyName: string }) => {
        const path = signingKeyPath(io, opts.key);
        const { publicKey, publicPath } = generateCheckpointKey(path);
        io.out(`private key: ${path}\npublic key:  ${publicPath}\nverifier key: ${verifierKey(opts.keyName, publicKey)}\n`);
      }),
    );
}

function workspaceDir(io: LedgerCommandIo, opts: Location): string {
  return resolve(io.cwd, opts.workspace ?? ".");
}

function ledgerPath(io: LedgerCommandIo, opts: Location): string {
  return opts.ledger !== undefined ? resolve(io.cwd, opts.ledger) : defaultLedgerPath(workspaceDir(io, opts));
}

function signingKeyPath(io: LedgerCommandIo, flag: string | undefined): string {
  const path = flag ?? io.env.PROVENANT_LEDGER_KEY ?? defaultCheckpointKeyPath(io.env);
  return resolve(io.cwd, path);
}

function publicKeyPath(io: LedgerCommandIo, flag: string | undefined): string {
  const path = flag ?? io.env.PROVENANT_LEDGER_PUBKEY ?? publicKeyPathFor(signingKeyPath(io, undefined));
  return resolve(io.cwd, path);
}

function threadCount(text: string): number {
  const n = /^\d{1,2}$/.test(text) ? Number(text) : Number.NaN;
  if (!(n >= 1 && n <= MAX_THREADS)) throw new LedgerCommandError(`--threads must be a whole number from 1 to ${MAX_THREADS}, got "${text}"`, 2);
  return n;
}

function scanOrFail(path: string, options: LogScanOptions): LogScan {
  const scan = scanLog(path, options);
  if (scan.chains.length === 0) throw new LedgerCommandError(`no ledger at ${path}`, 2);
  return scan;
}

/** Fails on corruption, and on a torn tail: an interrupted append is never passed as part of the log. */
function requireIntact(scan: LogScan, path: string): void {
  const fault = scan.fault;
  if (fault !== undefined) {
    throw new LedgerCommandError(
      `CORRUPT at chain ${fault.chain} seq ${fault.seq} (log position ${fault.index}, ${fault.file} line ${fault.line}): ${fault.reason}`,
    );
  }
  const torn = scan.tornTail;
  if (torn !== undefined) {
    throw new LedgerCommandError(
      `${path} ends in an interrupted append (${torn.bytes} bytes after seq ${torn.afterSeq ?? "-"}); ` +
        `${scan.size} complete entries verified; the next open for writing cuts the fragment off`,
    );
  }
}

function missingEntry(scan: LogScan, index: number): never {
  if (scan.fault !== undefined && scan.fault.index <= index) requireIntact(scan, scan.fault.file);
  throw new LedgerCommandError(`no entry at position ${index}: the log holds ${scan.size}`, 2);
}

function parseCount(text: string, what: string): number {
  if (!/^(0|[1-9]\d*)$/.test(text) || !Number.isSafeInteger(Number(text))) {
    throw new LedgerCommandError(`${what} must be a non-negative integer, got ${JSON.stringify(text)}`, 2);
  }
  return Number(text);
}

function parseJson(text: string, what: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new LedgerCommandError(`${what} is not valid JSON: ${(error as Error).message}`, 2);
  }
}

function parseJsonObject(text: string, what: string): Record<string, unknown> {
  const value = parseJson(text, what);
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw new LedgerCommandError(`${what} must be a JSON object`, 2);
  return value as Record<string, unknown>;
}

function readText(file: string, what: string): string {
  try {
    return readFileSync(file, "utf8");
  } catch (error) {
    throw new LedgerCommandError(`cannot read ${what} ${file}: ${(error as NodeJS.ErrnoException).code ?? "error"}`, 2);
  }
}

function emit(io: LedgerCommandIo, out: string | undefined, doc: unknown): void {
  const text = `${JSON.stringify(doc, null, 2)}\n`;
  if (out === undefined) io.out(text);
  else writeFileAtomic(resolve(io.cwd, out), text, 0o644);
}

function mkdirFor(file: string): void {
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
}

function progressBar(io: LedgerCommandIo): { update: (done: number, total: number) => void; done: () => void } {
  let shown = -1;
  return {
    update: (done, total) => {
      const percent = total === 0 ? 100 : Math.floor((done / total) * 100);
      if (percent === shown) return;
      shown = percent;
      const filled = Math.round(percent / 4);
      io.err(`\rverifying [${"#".repeat(filled)}${"-".repeat(25 - filled)}] ${percent}% ${(done / 1e6).toFixed(1)}/${(total / 1e6).toFixed(1)} MB`);
    },
    done: () => {
      if (shown >= 0) io.err("\r\x1b[K");
    },
  };
}
