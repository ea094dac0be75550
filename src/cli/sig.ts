import type { Command } from "commander";
import {
  auditCommand,
  chainCommand,
  checkCommand,
  initCommand,
  keygenCommand,
  listCommand,
  policyCommand,
  signCommand,
  statusCommand,
  updateCommand,
  verifyCommand,
} from "../sig/commands.js";
import type { SigCommandIo } from "../sig/commands.js";
import { displayBlock } from "../core/safe-display.js";

function processIo(): SigCommandIo {
  return {
    cwd: process.cwd(),
    env: process.env,
    // File names and template text come from the workspace: shown with control characters escaped.
    out: (line) => process.stdout.write(displayBlock(line) + "\n"),
    err: (line) => process.stderr.write(displayBlock(line) + "\n"),
    readStdin: async () => {
      const chunks: Buffer[] = [];
      for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
      return Buffer.concat(chunks).toString("utf8");
    },
    clock: () => Date.now(),
  };
}

/**
 * `provenant sig ...`: sig's commands with sig's arguments and exit codes, plus `keygen`.
 * `io` is injectable so tests drive the real commands in-process.
 */
export function registerSigCommands(program: Command, io: () => SigCommandIo = processIo): void {
  const run = async (body: (io: SigCommandIo) => Promise<number>): Promise<void> => {
    const code = await body(io());
    if (code !== 0) process.exitCode = code;
  };
  const sig = program.command("sig").description("Sign and verify prompt templates and protected workspace files (sig-compatible).");

  sig
    .command("init")
    .description("Initialize .sig/ directory with config")
    .option("--engine <engines>", "Template engine(s), comma-separated")
    .option("--by <identity>", "Default signing identity")
    .action((opts: { engine?: string; by?: string }) => run((io) => initCommand(io, opts)));

  sig
    .command("sign")
    .description("Sign file(s)")
    .argument("<files...>", "Files or glob patterns to sign")
    .option("--by <identity>", "Signing identity")
    .option("--engine <engine>", "Template engine override")
    .option("--key <path>", "Ed25519 signing key (default: $PROVENANT_SIG_KEY, then the keygen default)")
    .action((files: string[], opts: { by?: string; engine?: string; key?: string }) => run((io) => signCommand(io, files, opts)));

  sig
    .command("verify")
    .description("Verify a signed file and print its content")
    .argument("<file>", "File to verify")
    .option("--public-key <key>", "Trusted Ed25519 public key (ed25519:<base64>)")
    .action((file: string, opts: { publicKey?: string }) => run((io) => verifyCommand(io, file, opts)));

  sig
    .command("check")
    .description("Check signing status of file(s)")
    .argument("[files...]", "Files or glob patterns (default: all signed)")
    .option("--public-key <key>", "Trusted Ed25519 public key (ed25519:<base64>)")
    .action((files: string[], opts: { publicKey?: string }) => run((io) => checkCommand(io, files, opts)));

  sig
    .command("list")
    .description("List all signed files")
    .option("--public-key <key>", "Trusted Ed25519 public key (ed25519:<base64>)")
    .action((opts: { publicKey?: string }) => run((io) => listCommand(io, opts)));

  sig
    .command("status")
    .description("Overview of signed/modified/unsigned files")
    .option("--public-key <key>", "Trusted Ed25519 public key (ed25519:<base64>)")
    .action((opts: { publicKey?: string }) => run((io) => statusCommand(io, opts)));

  sig
    .command("audit")
    .description("Show audit log")
    .argument("[file]", "Filter to specific file")
    .action((file: string | undefined) => run((io) => auditCommand(io, file)));

  sig
    .command("update")
    .description("Update a mutable signed file (reads new content from stdin)")
    .argument("<file>", "File to update")
    .requiredOption("--by <identity>", "Identity authorizing this update")
    .requiredOption("--reason <reason>", "Reason for the update")
    .requiredOption("--source-type <type>", "Source type (signed_message or signed_template)")
    .option("--source-id <id>", "ID of the signed source")
    .option("--key <path>", "Ed25519 signing key")
    .option("--public-key <key>", "Trusted Ed25519 public key, for a signed_template source")
    .action((file: string, opts: { by: string; reason: string; sourceType: string; sourceId?: string; key?: string; publicKey?: string }) =>
      run((io) => updateCommand(io, file, opts)),
    );

  sig
    .command("chain")
    .description("Show the update chain for a mutable file")
    .argument("<file>", "File to show chain for")
    .option("--verify", "Validate chain integrity")
    .action((file: string, opts: { verify?: boolean }) => run((io) => chainCommand(io, file, opts)));

  sig
    .command("policy")
    .description("Show file policy")
    .argument("[file]", "File to check policy for (shows all if omitted)")
    .action((file: string | undefined) => run((io) => policyCommand(io, file)));

  sig
    .command("keygen")
    .description("Create an Ed25519 key pair for detached signatures (private key kept outside the project)")
    .option("--out <path>", "Private key file (default: $XDG_CONFIG_HOME/provenant/sig-ed25519.pem)")
    .option("--force", "Replace an existing key")
    .action((opts: { out?: string; force?: boolean }) => run((io) => keygenCommand(io, opts)));
}
