import { definePluginEntry } from "openclaw/plugin-sdk/plugin-entry";
import { Guard } from "../../guard.js";
import { gatewayConsoleService } from "../../service/console/gateway-console.js";
import { pluginConfigSchema } from "./config-schema.js";
import { openclawInstallations } from "./host-installation.js";
import { openclawLogFiles } from "./host-log-file.js";
import { splitPluginConfig } from "./plugin-config.js";
import { currentHostConfig, PLUGIN_ID } from "./host-config.js";
import { registerProvenant } from "./provenant-plugin.js";

/**
 * The OpenClaw plugin entry (`openclaw.extensions` names its bundle, dist/openclaw-plugin.js). OpenClaw validates
 * `plugins.entries.provenant.config` against the manifest's schema before loading this; the guard
 * validates it again and refuses to start on a bad value, naming the key. The entry is where the
 * plugin is composed: the guard, and (with `console.serve`) the owner's console as a gateway
 * service, which lives above the adapters.
 */
export default definePluginEntry({
  id: PLUGIN_ID,
  name: "provenant",
  description: "Provenance taint tracking and tool-call policy: stops tool calls that untrusted content in the context asks for.",
  configSchema: pluginConfigSchema,
  register(api) {
    // OpenClaw's bundled skills and docs are read as the owner's install, not as a dependency.
    const hostInstallations = openclawInstallations();
    if (hostInstallations.length === 0) {
      api.logger.warn(`provenant: OpenClaw's installation was not found above ${process.argv[1] ?? "(no program)"}; its bundled skills and docs are read as external content`);
    }
    // What OpenClaw logs (a failed fetch's error holds the page) is every session's: read untrusted,
    // in the log file its configuration names at each read (a change applies without a restart).
    const hostFiles = { installations: hostInstallations, logFiles: () => openclawLogFiles(currentHostConfig(api)) };
    registerProvenant(
      api,
      (workspaceDir, logger) => Guard.open({ config: splitPluginConfig(api.pluginConfig ?? {}).guard, workspaceDir, logger, hostFiles }),
      (workspace, port, logger) => gatewayConsoleService({ workspace, port, log: (m) => logger.info(m) }),
    );
  },
});
