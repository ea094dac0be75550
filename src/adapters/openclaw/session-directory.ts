import type { ForeignText } from "./runtime-context.js";
import type { InputProvenance } from "./sdk-types.js";
import type { TurnOrigin } from "./turn-origin.js";

/** More than any chat window the host shows holds (Telegram's default is 10 messages). */
const MAX_TAINTED_LINES = 200;

/** Where one OpenClaw conversation's turn stands, as the adapter tracks it between hooks. */
export interface TurnState {
  /** The guard's session id: OpenClaw's session id, which `/new` and `/reset` regenerate. */
  readonly sessionId: string;
  /**
   * OpenClaw's session key (`agent:main:telegram:direct:…`): the name its session tools and
   * sub-agent parents use, so the guard can tell which session their content came from.
   */
  readonly sessionKey: string | undefined;
  readonly workspaceDir: string;
  runId: string | null;
  /**
   * `pending`: seen at `before_prompt_build`, where the host's owner verdict is not known yet.
   * `confirmed`: the guard's turn has begun with that verdict and the message text; every tool
   * decision uses it. `ended`: sealed at `agent_end`.
   */
  phase: "pending" | "confirmed" | "ended";
  origin: TurnOrigin;
  agentId: string | null;
  /** The sender's own words: the message less what OpenClaw inlined (inlined-content.ts). */
  text: string;
  /** OpenClaw's id for the admitted user message, naming the signed owner message. */
  messageId: string | undefined;
  jobId: string | undefined;
  inputProvenance: InputProvenance | undefined;
  trigger: string | undefined;
  /** Set when message authentication refused the turn's message (what the sender may be told). */
  refusal: string | null;
  /**
   * Someone else's text the turn carries, by what it is: what OpenClaw inlined in its message
   * (inlined-content.ts) and what its runtime context holds (runtime-context.ts); `reason` is the
   * taint's, `applied` once it has tainted the begun turn.
   */
  foreignContext: Map<string, ForeignText & { reason: string; applied: boolean }>;
  /**
   * The model has answered in this turn (an assistant message was written): a user message
   * written after that was handed to the running turn by the host (steered-messages.ts).
   */
  answered?: boolean;
  /** The tools this turn's list left out (restricted at the conversation's taint). */
  hidden?: readonly string[];
  /** The file whose text the host put in the message to run it (boot-check.ts): judged as read at the turn's start. */
  runsFile?: string;
  /**
   * The message as the host handed it to `before_prompt_build`, and this plugin's own context for
   * it: the prompt the model gets first is held against them (added-context.ts), once.
   */
  prompt?: { readonly message: string; readonly own: string | undefined; checked: boolean };
}

/**
 * Maps the identifiers OpenClaw hands each hook to the guard session they belong to. Agent and
 * tool hooks carry the session id; delivery hooks carry only the session key, and commands may
 * carry either, so both directions are kept. Sub-agents are remembered from `subagent_spawned`
 * so the child's turns can name their parent.
 */
export class SessionDirectory {
  private readonly turns = new Map<string, TurnState>();
  private readonly idByKey = new Map<string, string>();
  private readonly parentByChildKey = new Map<string, string>();
  private readonly inboundSenders = new Map<string, { readonly senderId: string; readonly channel: string }>();
  /** Per session, the chat-window lines that have tainted it (oldest first, at most MAX_TAINTED_LINES). */
  private readonly taintedLines = new Map<string, Set<string>>();

  turn(sessionId: string): TurnState | undefined {
    return this.turns.get(sessionId);
  }

  put(state: TurnState, sessionKey: string | undefined): void {
    this.turns.set(state.sessionId, state);
    if (sessionKey !== undefined) this.idByKey.set(sessionKey, state.sessionId);
  }

  /** The guard session for a hook that may know the session id, the key, or both. */
  sessionIdFor(ids: { sessionId?: string | undefined; sessionKey?: string | undefined }): string | undefined {
    if (ids.sessionId !== undefined) return ids.sessionId;
    if (ids.sessionKey !== undefined) return this.idByKey.get(ids.sessionKey) ?? ids.sessionKey;
    return undefined;
  }

  noteSubagent(childSessionKey: string, parentSessionKey: string): void {
    this.parentByChildKey.set(childSessionKey, parentSessionKey);
  }

  parentOf(sessionKey: string | undefined): string | null {
    return sessionKey === undefined ? null : (this.parentByChildKey.get(sessionKey) ?? null);
  }

  forgetSubagent(childSessionKey: string): void {
    this.parentByChildKey.delete(childSessionKey);
  }

  /** The sender of the last inbound message in a conversation (`message_received`), for turns whose context omits it. */
  noteInboundSender(sessionKey: string, senderId: string, channel: string): void {
    this.inboundSenders.set(sessionKey, { senderId, channel });
  }

  inboundSender(sessionKey: string | undefined): { readonly senderId: string; readonly channel: string } | undefined {
    return sessionKey === undefined ? undefined : this.inboundSenders.get(sessionKey);
  }

  /**
   * Whether every one of `lines` has tainted this session before. The host shows a chat window's
   * lines again with later turns; a line already in the session's taint is its history by then,
   * as accepted as any other once the owner resets trust. Kept in memory only: after a restart a
   * line taints once more.
   */
  taintedBefore(sessionId: string, lines: readonly string[]): boolean {
    const known = this.taintedLines.get(sessionId);
    return known !== undefined && lines.every((line) => known.has(line));
  }

  noteTainting(sessionId: string, lines: readonly string[]): void {
    const known = this.taintedLines.get(sessionId) ?? new Set<string>();
    for (const line of lines) {
      known.delete(line);
      known.add(line);
    }
    for (const oldest of known) {
      if (known.size <= MAX_TAINTED_LINES) break;
      known.delete(oldest);
    }
    this.taintedLines.set(sessionId, known);
  }

  forget(sessionId: string, sessionKey: string | undefined): void {
    this.turns.delete(sessionId);
    this.taintedLines.delete(sessionId);
    if (sessionKey !== undefined && this.idByKey.get(sessionKey) === sessionId) this.idByKey.delete(sessionKey);
    if (sessionKey !== undefined) this.inboundSenders.delete(sessionKey);
  }
}
