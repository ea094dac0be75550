/**
 * One replay: the owner's authenticated request, then the tool calls an agent made, each with the
 * output it got. The corpus converter and the recorded-run reader both produce these, and the
 * runner drives the guard from them.
 */
export interface ReplayCall {
  readonly id: string;
  readonly function: string;
  readonly args: Readonly<Record<string, unknown>>;
  readonly output: string;
  /** Who wanted the call: the owner's task, or the attacker's injection task. */
  readonly origin: "user" | "injection";
  /** For recorded runs: the origin by the older rule, any side-effecting function of the injection task (reported beside). */
  readonly originByFunctionName?: "user" | "injection";
}

export interface ReplayTrace {
  readonly suite: string;
  readonly userTaskId: string;
  /** null for a benign run. */
  readonly injectionTaskId: string | null;
  readonly prompt: string;
  readonly calls: readonly ReplayCall[];
  /** For recorded runs: what the run itself reported (AgentDojo's utility and security checks). */
  readonly recorded?: {
    readonly pipeline: string;
    readonly attackType: string;
    readonly utility: boolean | null;
    readonly security: boolean;
    /** The benchmark version the run names, whose corpus it is replayed against. */
    readonly version: string;
  };
}
