import { homedir } from "node:os";
import type { Decision } from "../../core/decision.js";
import { filePathParam } from "../../core/file-path-param.js";
import { hostCatalogue } from "../../core/host-catalogue.js";
import { lessTrusted, type TrustLevel } from "../../core/trust-levels.js";
import { displayText } from "../../core/safe-display.js";
import { failSafeDecision, type FailMode } from "../../guard-fail-safe.js";
import type { Guard } from "../../guard.js";
import { instructionsHold, resultIs, sessionHolds } from "./own-context.js";
import { contextAnswer, decisionAnswer, errorAnswer, NO_OPINION, promptBlockedAnswer, type HookAnswer } from "./hook-answer.js";
import type { HookEvent } from "./hook-event.js";
import { atPaths } from "./at-paths.js";
import { autoMemoryDirectories } from "./auto-memory.js";
import { waitForOwner, type HookWait, type WaitingGuard } from "./held-call-wait.js";
import { addedDirectoryInstructionFiles, nestedInstructionFiles, startInstructionFiles, type InstructionFiles } from "./instruction-files.js";
import { keepsNoTranscript, launchDirectories, settingsDirectories, takesContentBlocks } from "./launch-directories.js";
import { mcpToolsLoaded } from "./loaded-tools.js";
import { mayRunOtherHooks } from "./other-hooks.js";
import { promptAttachments, transcriptCaughtUp } from "./prompt-attachments.js";
import type { TurnMessages } from "./turn-messages.js";

export type HookGuard = Pick<Guard, "beginTurn" | "beforeToolCall" | "afterToolCall" | "endTurn" | "taint" | "inheritTaint" | "contextFiles">;

/**
 * A fork (`--fork-session`, `/branch`) copies a conversation under a new session id, and Claude Code
 * 2.1.332 does not say which one (nor do the copied transcript entries): whatever the conversation
 * read, it now holds under an id the guard has never seen. It starts untrusted until the owner
 * types `.reset-trust`.
 */
const FORK_TAINT = "untrusted";
const FORK_REASON = "a fork of an earlier conversation, which may hold content from anywhere (Claude Code does not say which session it copied)";


/** What an MCP server's prompt is, as the MCP catalogue has its tools' output. */
const MCP_PROMPT_TAINT = "untrusted";

/**
 * What an image or a document the owner sent with a prompt is: content someone made (a screenshot
 * of a mail, an invoice), as OpenClaw's attachments are.
 */
const ATTACHMENT_TAINT = "untrusted";
/** What another hook put before the model: its command's output, of whatever it read (hook-output.ts). */
const HOOK_OUTPUT_TAINT = "untrusted";

/** How long a call waits for the transcript to hold its turn's prompt and the messages sent into the turn (they are there within tens of milliseconds). */
const PROMPT_ENTRY_WAIT_MS = 1000;

type TurnEvent = Extract<HookEvent, { hook_event_name: "PreToolUse" | "Stop" }>;

/**
 * {@link ClaudeCodeHooks.awaitPromptEntry}, for a hook that has not looked the prompt up before (a
 * process of its own): it waits for the prompt's entry and every message counted into its turn.
 */
export async function awaitPromptEntry(event: HookEvent, hookPid: number | undefined, turns: TurnMessages, waitMs = PROMPT_ENTRY_WAIT_MS): Promise<void> {
  if (event.hook_event_name !== "PreToolUse" || event.prompt_id === undefined) return;
  await awaitTranscript(event, hookPid, waitMs, null, turns.queuedInto(event.session_id, event.prompt_id));
}

/** Until the transcript, read from `from`, holds the prompt's entry and `queued` messages sent into the turn, at most `waitMs`. */
async function awaitTranscript(event: Extract<HookEvent, { hook_event_name: "PreToolUse" }>, hookPid: number | undefined, waitMs: number, from: number | null, queued: number): Promise<void> {
  if (event.prompt_id === undefined || event.transcript_path === undefined) return;
  if (hookPid !== undefined && keepsNoTranscript(hookPid) === true) return;
  await transcriptCaughtUp(event.transcript_path, event.prompt_id, from, queued, waitMs);
}

/** The local user at the terminal is the owner: Claude Code has no other sender. */
const OWNER = Object.freeze({ id: "local-user", isOwner: true });
const PROVIDER = "claude-code";
/** How Claude Code 2.1.332 opens the prompt it submits when a background agent finishes. */
const TASK_NOTIFICATION = "<task-notification>";
/**
 * The elements Claude Code 2.1.332 wraps someone else's text in when it submits that text as a
 * prompt of the session (its own names for them): a channel's message (an MCP server pushing a
 * chat's messages in, `<channel source="…">`), a teammate's, another session's or agent's, a
 * Slack mention, a review's findings, fetched web content, a relayed call. None is typed by the owner.
 */
const SUBMITTED_FOR_OTHERS = [
  "channel",
  "teammate-message",
  "cross-session-message",
  "agent-message",
  "coordinator-relay",
  "slack-ping",
  "slack-tag-message",
  "remote-review",
  "remote-review-progress",
  "fetched-web-content",
  "untrusted-widget-state",
  "voice-call-talk",
];
const SUBMITTED_FOR_OTHER = new RegExp(`^\\s*<(${SUBMITTED_FOR_OTHERS.join("|")})[\\s>]`);

/**
 * Claude Code's hook events onto the guard's event model. `UserPromptSubmit` opens the owner's
 * turn; `PreToolUse` is the decision; `PostToolUse` brings the result into the graph;
 * `Stop`/`SessionEnd` end the turn. A guard that has not seen the session (a new hook process, a
 * restarted service) picks it up from its persisted watermark before anything else: the taint a
 * session reached survives every process boundary; only what was learnt in memory (which owner
 * words vouch for which values) does not, and that only makes the guard ask more.
 */
export class ClaudeCodeHooks {
  private readonly seen = new Set<string>();
  /** Per session, the prompt whose attachments were last looked for and where its transcript was read to (null: no need to read on). */
  private readonly attachmentsRead = new Map<string, { readonly promptId: string; readonly next: number | null; readonly queued: number }>();
  /**
   * `turns` counts the messages sent into each session's running turn (kept in the project's state,
   * turn-messages.ts): until the transcript holds each, it cannot be looked through. `home` is the
   * user's, where Claude Code keeps the user's own instructions (`~/.claude/`).
   */
  constructor(
    private readonly guard: HookGuard,
    private readonly turns: TurnMessages,
    private readonly home: string = homedir(),
  ) {}

  /**
   * As `handle`, except that a PreToolUse the guard holds waits for the owner's answer in the
   * console when `wait` is given and a console shows the approvals inbox (held-call-wait.ts).
   */
  async handleWaiting(event: HookEvent, wait: HookWait | null, guard: WaitingGuard | null, hookPid?: number): Promise<HookAnswer> {
    if (event.hook_event_name !== "PreToolUse" || wait === null || guard === null) return this.handle(event, hookPid);
    this.resume(event.session_id);
    this.judgeAttachments(event, hookPid);
    const call = { ...(event.tool_use_id !== undefined ? { id: event.tool_use_id } : {}), tool: event.tool_name, params: event.tool_input };
    const decision = this.guard.beforeToolCall(event.session_id, call);
    if (decision.verdict !== "confirm" || decision.code === undefined) return decisionAnswer(decision);
    return decisionAnswer(await waitForOwner(guard, event.session_id, call, decision, wait));
  }

  /**
   * Before a call: Claude Code writes the prompt's entry, and each message sent into the running
   * turn, into the transcript as the model gets them, and a call can reach its hook a few
   * milliseconds before that. So the lookup waits, at most `waitMs`, for the prompt's entry (the
   * turn's first call) and for every message counted since the last lookup; not for a Claude Code
   * told to keep no transcript. Past the wait, the lookup goes on as it would have.
   */
  async awaitPromptEntry(event: HookEvent, hookPid: number | undefined, waitMs = PROMPT_ENTRY_WAIT_MS): Promise<void> {
    if (event.hook_event_name !== "PreToolUse") return;
    const earlier = this.attachmentsRead.get(event.session_id);
    const read = earlier?.promptId === event.prompt_id ? earlier : undefined;
    // What came with the turn has tainted the session already: nothing read later changes that.
    if (read?.next === null) return;
    const missing = this.queuedInto(event.session_id, event.prompt_id) - (read?.queued ?? 0);
    if (read !== undefined && missing <= 0) return;
    await awaitTranscript(event, hookPid, waitMs, read?.next ?? null, Math.max(0, missing));
  }

  /** How many messages the owner sent while the turn of `promptId` ran (Claude Code queues them into it). */
  private queuedInto(session: string, promptId: string | undefined): number {
    return promptId === undefined ? 0 : this.turns.queuedInto(session, promptId);
  }

  /** `hookPid`: the hook process Claude Code started for the event (the command line it was launched with is above it). */
  handle(event: HookEvent, hookPid?: number): HookAnswer {
    const session = event.session_id;
    switch (event.hook_event_name) {
      case "UserPromptSubmit": {
        if (event.prompt.startsWith(TASK_NOTIFICATION)) {
          // Claude Code submits a background agent's result as a prompt: it is that agent's output,
          // not the owner's words, and enters the graph as the Agent tool's result would.
          this.resume(session);
          this.guard.afterToolCall(session, { tool: "Agent", params: {}, output: event.prompt, ran: true });
          return NO_OPINION;
        }
        const wrapped = SUBMITTED_FOR_OTHER.exec(event.prompt)?.[1];
        if (wrapped !== undefined) {
          // Someone else's words in the session, not a turn of the owner's: they vouch for nothing,
          // and what the session does next asks.
          this.resume(session);
          this.guard.inheritTaint(session, "untrusted", `Claude Code submitted a <${wrapped}> as a prompt: someone else's words, not the owner's`);
          return NO_OPINION;
        }
        this.seen.add(session);
        if (event.prompt_id !== undefined) this.turns.submitted(session, event.prompt_id);
        const start = this.guard.beginTurn({ sessionId: session, sender: OWNER, provider: PROVIDER, text: event.prompt });
        if (start.command !== null) return promptBlockedAnswer(`provenant: ${displayText(start.command.message)}`);
        // Claude Code attaches what the prompt @-mentions itself, with no tool call: a file (or a
        // directory's listing) and an MCP resource enter the context as if read, and are judged so.
        for (const mention of promptMentions(event.prompt)) {
          this.guard.afterToolCall(session, mention.resource ? { tool: "ReadMcpResourceTool", params: { uri: mention.text }, output: "", ran: true } : { tool: "Read", params: { file_path: mention.text }, output: "", ran: true });
        }
        return NO_OPINION;
      }
      case "SessionStart": {
        this.turns.sweep(new Date());
        if (event.source === "fork" && !this.seen.has(session)) this.guard.inheritTaint(session, FORK_TAINT, FORK_REASON);
        this.resume(session);
        const before = this.guard.taint(session) ?? "trusted";
        // Claude Code loads its memory (CLAUDE.md, rules, their imports, its auto memory's notes)
        // and lists its skills and commands with no tool call, those of the directories it was
        // given beside its start directory too; each file enters the context as if read, and is judged so.
        const additional = [...settingsDirectories(event.cwd, this.home), ...(hookPid === undefined ? [] : launchDirectories(hookPid))];
        const taint = this.judgeInstructions(session, startInstructionFiles(event.cwd, this.home, additional, autoMemoryDirectories(event.cwd, this.home)));
        if (lessTrusted(taint, before)) return contextAnswer("SessionStart", instructionsHold(taint));
        if (taint === "trusted") return NO_OPINION;
        return contextAnswer("SessionStart", sessionHolds(taint));
      }
      case "UserPromptExpansion":
        // An MCP server's prompt is the server's words in the owner's prompt (a slash command's
        // text is a project's or the user's file, read as the owner's).
        this.resume(session);
        if (event.expansion_type === "mcp_prompt") this.guard.inheritTaint(session, MCP_PROMPT_TAINT, `the prompt holds an MCP server's prompt (${displayText(event.command_name ?? "unnamed")})`);
        return NO_OPINION;
      case "PreToolUse": {
        this.resume(session);
        this.judgeAttachments(event, hookPid);
        return decisionAnswer(this.guard.beforeToolCall(session, { ...(event.tool_use_id !== undefined ? { id: event.tool_use_id } : {}), tool: event.tool_name, params: event.tool_input }));
      }
      case "PreSkillShellCommand": {
        // Decided as the call it is; no PostToolUse follows, and what it prints goes into the
        // prompt, so a command that runs enters the graph now, as its words say it will print.
        this.resume(session);
        const call = { ...(event.tool_use_id !== undefined ? { id: event.tool_use_id } : {}), tool: event.tool_name, params: event.tool_input };
        const decision = this.guard.beforeToolCall(session, call);
        if (decision.verdict === "allow") this.guard.afterToolCall(session, { ...call, output: "", ran: true });
        return decisionAnswer(decision, "PreSkillShellCommand");
      }
      case "PostToolUse":
      case "PostToolUseFailure": {
        this.resume(session);
        const before = this.guard.taint(session) ?? "trusted";
        const outcome = this.guard.afterToolCall(session, {
          ...(event.tool_use_id !== undefined ? { id: event.tool_use_id } : {}),
          tool: event.tool_name,
          params: event.tool_input,
          // A failed call's error is its result to the model: a command that printed a web page
          // and then exited non-zero (curl cut off mid-page) put the page before the model all the same.
          output: event.hook_event_name === "PostToolUse" ? event.tool_response : event.error,
          // Both come only for a call that ran, whether or not the guard had asked.
          ran: true,
          ...(event.duration_ms !== undefined ? { durationMs: event.duration_ms } : {}),
          // Claude Code, above the hook, ran the command: what it left running descends from it.
          ...(hookPid !== undefined ? { reportedBy: hookPid } : {}),
        });
        // A search that loads MCP tools brings their descriptions into the model's tools: each is
        // its server's words, worth what that tool's output is (an unknown tool's: untrusted).
        const loaded = event.hook_event_name === "PostToolUse" ? mcpToolsLoaded(event.tool_name, event.tool_response) : [];
        for (const tool of loaded) this.guard.afterToolCall(session, { tool, params: {}, output: "", ran: true });
        // A file's call brings along the instruction files of the directories down to it.
        const path = filePathParam(event.tool_input);
        const taint = path !== undefined ? this.judgeInstructions(session, nestedInstructionFiles(path, event.cwd, this.home)) : (this.guard.taint(session) ?? outcome.taint);
        const told = outcome.notice === undefined ? [] : [outcome.notice];
        if (lessTrusted(taint, before)) {
          told.unshift(resultIs(displayText(event.tool_name), taint));
        }
        return told.length === 0 ? NO_OPINION : contextAnswer(event.hook_event_name, told.join("\n"));
      }
      case "InstructionsLoaded":
        // Claude Code's own report of what it loaded; the hook runs beside the session, not before
        // its next step, so the same files are also found at SessionStart and PostToolUse.
        this.resume(session);
        this.judgeInstructions(session, { files: [event.file_path], incomplete: null });
        return NO_OPINION;
      case "DirectoryAdded":
        this.resume(session);
        this.judgeInstructions(session, addedDirectoryInstructionFiles(event.directory, this.home));
        return NO_OPINION;
      case "Stop":
      case "SessionEnd":
        // A turn that made no call still leaves what its prompt came with in the conversation,
        // which the next turn's calls would act on.
        if (event.hook_event_name === "Stop") {
          this.resume(session);
          this.judgeAttachments(event, hookPid);
        }
        this.guard.endTurn(session);
        this.seen.delete(session);
        if (event.hook_event_name === "SessionEnd") {
          this.attachmentsRead.delete(session);
          this.turns.forget(session);
        }
        return NO_OPINION;
      case "SubagentStop":
        return NO_OPINION;
    }
  }

  /**
   * An image or a document that came with the turn's prompt taints the session before the turn's
   * calls are decided, and at the turn's end (prompt-attachments.ts). Where that cannot be looked
   * up, the session is tainted as if it had, except when Claude Code keeps no transcript and its
   * command line shows prompts that are text only (`-p` without `--input-format stream-json`).
   */
  private judgeAttachments(event: TurnEvent, hookPid: number | undefined): void {
    const promptId = event.prompt_id;
    // A call of no prompt's turn: nothing the owner sent comes with it.
    if (promptId === undefined) return;
    const session = event.session_id;
    const earlier = this.attachmentsRead.get(session);
    if (earlier?.promptId === promptId && earlier.next === null) return;
    const from = earlier?.promptId === promptId ? earlier.next : null;
    const check =
      event.transcript_path === undefined
        ? { checked: false as const, why: "Claude Code named no transcript", noTranscript: true }
        : promptAttachments(event.transcript_path, promptId, from);
    if (check.checked) {
      const carried = check.kinds.length > 0;
      const hooks = check.hookOutputs.length > 0;
      const queued = (earlier?.promptId === promptId ? earlier.queued : 0) + check.queued;
      const notFiled = this.queuedInto(session, promptId) - queued;
      this.attachmentsRead.set(session, { promptId, next: carried || hooks || notFiled > 0 ? null : check.next, queued });
      // A prompt a hook submitted is the turn's message: its words stop counting as the owner's.
      if (hooks) this.guard.inheritTaint(session, HOOK_OUTPUT_TAINT, `${check.hookOutputs.join(", ")} (what a hook's command printed, not the owner's words)`, check.hookPrompt);
      if (carried) this.guard.inheritTaint(session, ATTACHMENT_TAINT, `the prompt came with ${check.kinds.map((k) => displayText(k)).join(", ")}: what it shows is whoever made it, not the owner's words`);
      else if (notFiled > 0) this.guard.inheritTaint(session, ATTACHMENT_TAINT, `what came with ${notFiled === 1 ? "a message" : `${notFiled} messages`} sent while the turn ran could not be looked up: the transcript does not hold it yet`);
      return;
    }
    this.attachmentsRead.set(session, { promptId, next: null, queued: 0 });
    if (check.noTranscript && hookPid !== undefined && takesContentBlocks(hookPid) === false && !mayRunOtherHooks(event.cwd, this.home, hookPid)) return;
    this.guard.inheritTaint(session, ATTACHMENT_TAINT, `what the prompt came with beside its text, and what other hooks printed, could not be looked up: ${check.why}`);
  }

  /** Each instruction file enters the session as a Read of it would; the session's taint after them. */
  private judgeInstructions(session: string, loaded: InstructionFiles): TrustLevel {
    this.guard.contextFiles(session, loaded.files, "instructions Claude Code loaded");
    if (loaded.incomplete !== null) this.guard.inheritTaint(session, "untrusted", `instructions Claude Code may load were not all checked: ${loaded.incomplete}`);
    return this.guard.taint(session) ?? "trusted";
  }

  private resume(session: string): void {
    if (this.seen.has(session)) return;
    this.seen.add(session);
    this.guard.beginTurn({ sessionId: session, sender: OWNER, provider: PROVIDER, text: "" });
  }
}

/** At most this many @-mentions of one prompt are judged; past it, the rest count as untrusted. */
const MAX_MENTIONS = 64;

/**
 * What a prompt may @-mention (Claude Code 2.1.332 reads `@path`, `@"a path"`, `@path#L10-20`,
 * `@server:uri`): every spelling it could read (at-paths.ts). A spelling that names nothing is
 * judged by its name alone (`fileTrust` globs), which costs nothing; a mention missed is content
 * read unjudged. `resource` marks a `server:` form, an MCP resource (untrusted).
 */
export function promptMentions(prompt: string): { readonly text: string; readonly resource: boolean }[] {
  const mentions = atPaths(prompt).map((text) => ({
    text,
    // `server:uri` (not a path, not a Windows drive's `C:\` or `C:/`) is an MCP resource.
    resource: /^[A-Za-z0-9_.-]+:[^\s]/.test(text) && !/^[A-Za-z]:[\\/]/.test(text),
  }));
  return mentions.length <= MAX_MENTIONS ? mentions : [...mentions.slice(0, MAX_MENTIONS), { text: "(more @-mentions than are checked)", resource: true }];
}

/**
 * The answer when the guard could not be reached or could not decide. It never lets a side effect
 * through: a PreToolUse for a tool that only reads goes on, any other asks the user (`failMode`
 * open) or is denied (closed); other events report the error and change nothing.
 */
export function failedHookAnswer(eventName: string | null, tool: string | null, error: unknown, failMode: FailMode = "open"): HookAnswer {
  const message = error instanceof Error ? error.message : String(error);
  if (eventName === "PreToolUse" || eventName === "PreSkillShellCommand" || (eventName === null && tool !== null)) {
    if (tool === null) return errorAnswer(2, `could not decide a tool call: ${message}`);
    const decision: Decision = failSafeDecision(failMode, tool, error, undefined, hostCatalogue("claude-code"));
    return { ...decisionAnswer(decision, eventName === "PreSkillShellCommand" ? eventName : "PreToolUse"), stderr: `provenant: ${message}\n` };
  }
  if (eventName === null) return errorAnswer(2, message);
  return errorAnswer(1, message);
}
