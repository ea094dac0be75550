import { randomBytes } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import type { Command } from "commander";
import { parseActionClasses } from "../core/action-classes.js";
import { encodeScope } from "../auth/action-scope.js";
import { parseAuthConfig } from "../auth/config.js";
import { InboundAuthenticator } from "../auth/inbound-authenticator.js";
import { loadKeyFile, saveKeyFile } from "../auth/key-file.js";
import { KeyRing } from "../auth/key-ring.js";
import { isSignableSource } from "../auth/message-source.js";
import { exitWith } from "./exit.js";
import { displayJson } from "../core/safe-display.js";

const random = (n: number): Uint8Array => randomBytes(n);

/** `--time` / `--now`: milliseconds since the epoch or an ISO 8601 date; the clock when absent. */
function parseClock(value: string | undefined, flag: string): number {
  if (value === undefined) return Date.now();
  const ms = /^[0-9]+$/.test(value) ? Number(value) : Date.parse(value);
  if (!Number.isSafeInteger(ms) || ms < 0) throw new Error(`${flag}: ${JSON.stringify(value)} is neither milliseconds since the epoch nor an ISO 8601 date`);
  return ms;
}

function parseSeconds(value: string | undefined, flag: string, fallback: number): number {
  if (value === undefined) return fallback;
  if (!/^[0-9]+$/.test(value) || Number(value) < 1) throw new Error(`${flag}: ${JSON.stringify(value)} is not a positive whole number of seconds`);
  return Number(value);
}

function readStdin(): string {
  return readFileSync(0, "utf8");
}

function authenticator(keyFile: string, freshnessSeconds = 300, futureSkewSeconds = 30): InboundAuthenticator {
  const config = parseAuthConfig({ mode: "enforce", freshnessSeconds, futureSkewSeconds });
  return new InboundAuthenticator({ config, keys: loadKeyFile(keyFile), random });
}

/**
 * `provenant auth ...`: key management and envelope signing/checking for operators and tests.
 * Exit status: 0 on success, 1 when a message does not verify or a key file is unusable.
 */
export function registerAuthCommands(program: Command): void {
  const auth = program.command("auth").description("Authenticated owner instructions: keys and [MSG_AUTH] envelopes (RFC-001).");

  auth
    .command("keygen")
    .description("create a key file (mode 0600), or rotate or retire a key in one")
    .requiredOption("--out <file>", "key file to create or update")
    .option("--rotate", "add a new current key to an existing file; older keys keep verifying")
    .option("--retire <keyId>", "remove a non-current key from an existing file")
    .action((opts: { out: string; rotate?: boolean; retire?: string }) => {
      try {
        const now = new Date().toISOString();
        let ring: KeyRing;
        if (opts.rotate === true || opts.retire !== undefined) {
          ring = loadKeyFile(opts.out);
          if (opts.rotate === true) ring.rotate(random, now);
          if (opts.retire !== undefined) ring.retire(opts.retire);
        } else {
          if (existsSync(opts.out)) throw new Error(`${opts.out} exists; use --rotate to add a key to it (refusing to overwrite keys)`);
          ring = KeyRing.generate(random, now);
        }
        saveKeyFile(opts.out, ring);
        process.stdout.write(`${opts.out}: current key ${ring.currentId}; keys ${ring.ids.join(", ")}\n`);
      } catch (error) {
        exitWith("auth keygen", error);
      }
    });

  auth
    .command("sign")
    .description("wrap a message in an envelope bound to a session, time, message id and scope")
    .requiredOption("--key <file>", "key file")
    .requiredOption("--session <id>", "session the message is for")
    .option("--scope <classes>", "action classes it authorises, e.g. read,send (default: inferred from the text)")
    .option("--source <source>", "human, agent or system", "human")
    .option("--message-id <id>", "message id (default: random)")
    .option("--time <when>", "timestamp, ms since the epoch or ISO 8601 (default: now)")
    .argument("[text...]", "the message (default: standard input)")
    .action((words: string[], opts: { key: string; session: string; scope?: string; source: string; messageId?: string; time?: string }) => {
      try {
        if (!isSignableSource(opts.source)) throw new Error(`--source: ${JSON.stringify(opts.source)} is not human, agent or system`);
        const text = words.length > 0 ? words.join(" ") : readStdin();
        const envelope = authenticator(opts.key).signEnvelope({
          text,
          sessionId: opts.session,
          now: parseClock(opts.time, "--time"),
          source: opts.source,
          ...(opts.scope === undefined ? {} : { scope: parseActionClasses(opts.scope, "--scope") }),
          ...(opts.messageId === undefined ? {} : { messageId: opts.messageId }),
        });
        process.stdout.write(`${envelope}\n`);
      } catch (error) {
        exitWith("auth sign", error);
      }
    });

  auth
    .command("verify")
    .description("check an envelope read from standard input; print the verified message and its scope as JSON")
    .requiredOption("--key <file>", "key file")
    .requiredOption("--session <id>", "session the message must be bound to")
    .option("--now <when>", "our clock, ms since the epoch or ISO 8601 (default: now)")
    .option("--max-age <seconds>", "freshness window", "300")
    .option("--future-skew <seconds>", "how far ahead a timestamp may be", "30")
    .action((opts: { key: string; session: string; now?: string; maxAge: string; futureSkew: string }) => {
      try {
        const a = authenticator(opts.key, parseSeconds(opts.maxAge, "--max-age", 300), parseSeconds(opts.futureSkew, "--future-skew", 30));
        const r = a.verifyEnvelope(readStdin(), { sessionId: opts.session, now: parseClock(opts.now, "--now") });
        if (r.ok) {
          process.stdout.write(
            `${displayJson({ ok: true, text: r.text, scope: encodeScope(r.scope), source: r.source, messageId: r.messageId, keyId: r.keyId, timestamp: r.timestamp })}\n`,
          );
        } else {
          process.stdout.write(`${displayJson({ ok: false, check: r.check, reason: r.reason })}\n`);
          process.stderr.write(`provenant auth verify: ${r.check}: ${r.reason}\n`);
          process.exitCode = 1;
        }
      } catch (error) {
        exitWith("auth verify", error);
      }
    });
}
