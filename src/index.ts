// The library's public surface. Adapters drive `Guard`; the modules below are usable on their own.
export { Guard } from "./guard.js";
export type {
  CommandOutcome,
  GuardDependencies,
  ResponseOutcome,
  ToolCallInput,
  ToolResultInput,
  ToolResultOutcome,
  TurnAuthentication,
  TurnInput,
  TurnStart,
} from "./guard.js";
export { guardConfigJsonSchema, guardConfigSchema, resolveGuardConfig } from "./guard-config.js";
export type { GuardConfig } from "./guard-config.js";

export * from "./core/trust-levels.js";
export * from "./core/action-classes.js";
export * from "./core/policy-modes.js";
export { ConfigError } from "./core/config-error.js";
export type { ConfigProblem } from "./core/config-error.js";
export { resolveConfig } from "./core/config.js";
export type { ResolvedConfig } from "./core/config.js";
export type * from "./core/decision.js";
export type * from "./core/gate.js";
export type * from "./core/audit-sink.js";
export type { Logger } from "./core/logger.js";
export { consoleLogger } from "./core/logger.js";
export { ProvenanceGraph } from "./core/provenance-graph.js";
export { ToolPolicy } from "./core/tool-policy.js";

export * as auth from "./auth/index.js";
export * as ledger from "./ledger/index.js";
export { SigRuntime } from "./sig/runtime.js";
export { SIG_OWNER_TOOLS } from "./sig/owner-tools.js";
export { parseTrace } from "./adapters/replay/trace-events.js";
export { runReplay } from "./adapters/replay/replay-runner.js";
