import type { AgentContext } from "./sdk-types.js";

/** The opening of OpenClaw's wrapper around content from outside (hooks, mail). */
export const EXTERNAL_CONTENT_MARKER = "<<<EXTERNAL_UNTRUSTED_CONTENT";

/**
 * The sources of OpenClaw's system turns (`inputProvenance.kind === "internal_system"`: heartbeats
 * and the events queued for them) whose text is the owner's configuration: a scheduled heartbeat
 * (HEARTBEAT.md), a cron job's event text, the host's own restart notes. Any other source queues
 * text someone else wrote into the turn: a webhook's wake text (`hook`), a background command's
 * output (`exec`, `exec-event`), a paired device's notifications (`notifications-event`), a plugin's
 * event.
 */
const OWNER_SYSTEM_SOURCES: ReadonlySet<string> = new Set(["heartbeat", "cron", "restart-sentinel", "main_session_restart_recovery", "session_goal_resume"]);

/** The provider given to a system turn that carries someone else's text (kept whatever the host's owner bit says). */
const FOREIGN_SYSTEM_PROVIDER = "openclaw-system:";

/** Who produced a turn, in the guard's terms, as far as OpenClaw has told us so far. */
export interface TurnOrigin {
  readonly provider: string | null;
  readonly senderId: string | null;
  readonly isOwner: boolean | null;
  readonly group: string | null;
  readonly spawnedBy: string | null;
}

/**
 * The turn's origin from an agent hook's context. `before_prompt_build` does not carry the host's
 * owner bit, so `isOwner` here is only what configuration proves (`ownerIds`); the host's verdict
 * arrives later (`before_agent_run`, or a tool call's requester) and is applied with
 * {@link withHostOwnerVerdict}.
 *
 * - An inter-session turn (`inputProvenance.kind === "inter_session"`) came from another agent's
 *   session: its producer is that session, never the owner, unless it is our own sub-agent's
 *   parent talking to it (`spawnedBy`).
 * - A system turn (a heartbeat) that carries events someone else wrote (a webhook's wake text, a
 *   background command's output, a device's notifications) has no sender: the host runs it as the
 *   owner, but its text is not the owner's (see OWNER_SYSTEM_SOURCES).
 * - A run a hook dispatched (a webhook's `/hooks/agent` or mapped run, the Gmail preset, the IMAP
 *   plugin's mail) has no sender at all: it runs as a cron job, with no owner verdict and no
 *   channel, and would otherwise pass for a trusted system event. OpenClaw wraps its message as
 *   external, untrusted content, unless the owner turned that off (`allowUnsafeExternalContent`,
 *   which only changes what the model is shown); either way the run lacks the provenance OpenClaw
 *   gives the owner's own scheduled jobs (`internal_system`, `cron`), and the host's owner bit
 *   (whom the run is for) does not make it the owner's. Someone writing the marker into an
 *   ordinary message only makes that turn stricter; the owner's message that carries a file's
 *   text (wrapped) stays the owner's once the host says so, and the file is judged apart.
 * - The group is the conversation id when it differs from the sender's id (a DM's conversation is
 *   the sender); OpenClaw does not say "group" directly.
 */
export function originFromAgentContext(ctx: AgentContext, ownerIds: readonly string[], spawnedBy: string | null, text: string): TurnOrigin {
  const provenance = ctx.inputProvenance;
  if (ctx.trigger === "cron" && provenance?.kind !== "internal_system") {
    return { provider: `${FOREIGN_SYSTEM_PROVIDER}hook`, senderId: null, isOwner: false, group: null, spawnedBy: null };
  }
  if (text.includes(EXTERNAL_CONTENT_MARKER)) {
    return { provider: `openclaw:${ctx.trigger ?? "external"}`, senderId: null, isOwner: false, group: null, spawnedBy: null };
  }
  if (provenance?.kind === "internal_system" && !OWNER_SYSTEM_SOURCES.has(provenance.sourceTool ?? "")) {
    return { provider: `${FOREIGN_SYSTEM_PROVIDER}${provenance.sourceTool ?? "unknown"}`, senderId: null, isOwner: false, group: null, spawnedBy: null };
  }
  if (provenance?.kind === "inter_session") {
    const source = provenance.sourceSessionKey ?? provenance.originSessionId ?? "another session";
    return { provider: `inter_session:${provenance.sourceChannel ?? "internal"}`, senderId: source, isOwner: false, group: null, spawnedBy };
  }
  const provider = ctx.messageProvider ?? ctx.channel ?? null;
  const senderId = ctx.senderId ?? null;
  const conversation = ctx.chatId ?? null;
  const group = conversation !== null && senderId !== null && conversation !== senderId ? conversation : null;
  const isOwner = senderId !== null && ownerIds.includes(senderId) ? true : null;
  return { provider, senderId, isOwner, group, spawnedBy };
}

/**
 * Applies the host's owner verdict, which outranks configured owner ids in both directions (it is
 * about this message's admission, not just an id). An explicit "not the owner" on a turn with no
 * channel (the gateway's public ingress, a webhook) must not fall under the "system event" rule,
 * so such a turn is given a provider naming where it came from. Inter-session turns and system
 * turns carrying someone else's events keep their classification: the host's bit there describes
 * whoever the host runs the turn for, not who wrote its text.
 */
export function withHostOwnerVerdict(origin: TurnOrigin, hostSaysOwner: boolean | undefined, trigger: string | undefined): TurnOrigin {
  if (hostSaysOwner === undefined || origin.provider?.startsWith("inter_session:") || origin.provider?.startsWith(FOREIGN_SYSTEM_PROVIDER)) return origin;
  // An owner turn with no channel (the local CLI, an operator's gateway client) is named
  // "openclaw", so the owner's message is signed into the session like any channel's.
  if (hostSaysOwner) return { ...origin, isOwner: true, provider: origin.provider ?? "openclaw" };
  return { ...origin, isOwner: false, provider: origin.provider ?? `openclaw:${trigger ?? "ingress"}` };
}
