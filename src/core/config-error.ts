/** One problem with a configuration: where, what was given, and what is allowed. */
export interface ConfigProblem {
  readonly key: string;
  readonly message: string;
}

/**
 * Thrown when a configuration does not validate. It lists every problem, so the owner fixes the
 * file once; nothing starts with a half-applied policy.
 */
export class ConfigError extends Error {
  constructor(readonly problems: readonly ConfigProblem[]) {
    super(`invalid configuration:\n${problems.map((p) => `  - ${p.key}: ${p.message}`).join("\n")}`);
    this.name = "ConfigError";
  }
}
