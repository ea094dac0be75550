import type { ConsoleAccess } from "./console-access.js";

/** What every page of the console needs to know. */
export interface ConsoleContext {
  /** The agent's workspace; its state is in `.provenance/`. */
  readonly workspace: string;
  readonly ledgerPath: string;
  /** The checkpoint public key to check signed checkpoints with, if the owner has one. */
  readonly checkpointPublicKey: string;
  readonly access: ConsoleAccess;
  readonly now: () => Date;
  /** Operational messages and errors: details go here, never to the browser. */
  readonly log: (message: string) => void;
}

/** The JSON every POST answers with; the page's script shows `message` as text or follows `redirect`. */
export interface ActionReply {
  readonly ok: boolean;
  readonly message: string;
  /** A path on this console (built from fixed strings and encoded ids, never from input as given). */
  readonly redirect?: string;
}
