import type { Command } from "commander";
import { ConfigError, loadBrokerConfig } from "../broker/broker-config.js";
import { startBrokerDaemon } from "../broker/broker-daemon.js";
import { stderrLog } from "../broker/broker-log.js";
import { buildWrapperExecutable } from "../broker/wrapper-executable.js";

export function registerBrokerCommands(program: Command): void {
  const broker = program.command("broker").description("The credential broker (claw-wrap protocol v3).");

  broker
    .command("daemon")
    .description("Run the broker daemon: tools run here with credentials that never enter the sandbox.")
    .requiredOption("--config <path>", "wrappers.yaml")
    .option("--socket <path>", "Unix socket to listen on (overrides proxy.socket)")
    .option("--secret-file <path>", "where to write the HMAC secret (overrides proxy.hmac_secret_file)")
    .action(async (opts: { config: string; socket?: string; secretFile?: string }) => {
      let daemon;
      try {
        const config = loadBrokerConfig(opts.config, {
          ...(opts.socket === undefined ? {} : { socketPath: opts.socket }),
          ...(opts.secretFile === undefined ? {} : { secretFile: opts.secretFile }),
        });
        daemon = await startBrokerDaemon({ config, log: stderrLog });
      } catch (error) {
        process.stderr.write(`provenant broker daemon: ${error instanceof ConfigError ? error.message : (error as Error).message}\n`);
        process.exit(1);
      }
      const stop = (): void => {
        void daemon.close().then(() => process.exit(0));
      };
      process.once("SIGTERM", stop);
      process.once("SIGINT", stop);
    });

  broker
    .command("build-wrapper")
    .description("Build provenant-wrap as a single executable (for the caller allow-list); symlink tool names to it.")
    .requiredOption("--out <path>", "where to write the executable")
    .action(async (opts: { out: string }) => {
      try {
        await buildWrapperExecutable(opts.out);
        process.stdout.write(`${opts.out}\n`);
      } catch (error) {
        process.stderr.write(`provenant broker build-wrapper: ${(error as Error).message}\n`);
        process.exit(1);
      }
    });
}
