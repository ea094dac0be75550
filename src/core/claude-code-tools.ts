import { entry, type CatalogueEntry } from "./tool-catalogue.js";

/**
 * Claude Code's tools (`@anthropic-ai/claude-code` 2.1.332: the `tools` of its `init` event and of
 * its Messages API requests; a test reads both from the pinned program and fails on any name
 * missing here), with names an earlier or differently configured Claude Code offers (Glob, Grep,
 * MultiEdit, TodoWrite, the task tools, PowerShell on Windows), so a configuration written for
 * those means the same.
 *
 * Reads of local files are trusted, refined by `fileTrust` and the labels of files written under
 * taint; the web and MCP resources are untrusted; `Bash` is trusted, refined by what its command
 * does (core/exec-trust.ts). Whatever changes files, runs code, schedules a later prompt or
 * reaches another agent follows the taint policy; `Config` can switch hooks, and so this guard,
 * off, and needs approval at any taint.
 */
export const CLAUDE_CODE_TOOLS: Readonly<Record<string, CatalogueEntry>> = {
  Read: entry("trusted", "safe", "read"),
  NotebookRead: entry("trusted", "safe", "read"),
  Glob: entry("trusted", "safe", "read"),
  Grep: entry("trusted", "safe", "read"),
  LSP: entry("trusted", "safe", "read"),
  ToolSearch: entry("trusted", "safe", "read"),
  DeferredToolPlaceholder: entry("trusted", "safe", "read"),
  Skill: entry("trusted", "safe", "read"),
  StructuredOutput: entry("trusted", "safe", "read"),
  ReportFindings: entry("trusted", "safe", "read"),
  Sleep: entry("trusted", "safe", "read"),
  // The owner's own answer, and the session's own plan and task list.
  AskUserQuestion: entry("trusted", "safe", "read"),
  EnterPlanMode: entry("trusted", "safe", "read"),
  ExitPlanMode: entry("trusted", "safe", "read"),
  TodoWrite: entry("trusted", "safe", "write"),
  TaskCreate: entry("trusted", "safe", "write"),
  TaskUpdate: entry("trusted", "safe", "write"),
  TaskList: entry("trusted", "safe", "read"),
  TaskGet: entry("trusted", "safe", "read"),
  TaskStop: entry("trusted", "safe", "write"),
  KillShell: entry("trusted", "safe", "write"),
  CronList: entry("trusted", "safe", "read"),
  // Other agents and sessions on this machine, described by whoever started them.
  ListAgents: entry("shared", "safe", "read"),
  WebFetch: entry("untrusted", "safe", "read"),
  WebSearch: entry("untrusted", "safe", "read"),
  ListMcpResourcesTool: entry("untrusted", "safe", "read"),
  ReadMcpResourceTool: entry("untrusted", "safe", "read"),
  Write: entry("trusted", "taint", "write"),
  Edit: entry("trusted", "taint", "write"),
  MultiEdit: entry("trusted", "taint", "write"),
  NotebookEdit: entry("trusted", "taint", "write"),
  Bash: entry("trusted", "taint", "exec"),
  // Background output of this session's commands: as trusted as its worst command (exec-trust).
  BashOutput: entry("trusted", "safe", "read"),
  TaskOutput: entry("trusted", "safe", "read"),
  // Starts a watch: a shell command whose every line is an event (a command like Bash's, judged
  // the same), or a WebSocket whose every frame is one (no command: untrusted).
  Monitor: entry("trusted", "taint", "exec"),
  // No shell parser reads PowerShell here: its output is untrusted.
  PowerShell: entry("untrusted", "taint", "exec"),
  // A sub-agent acts with the session's tools; its calls come through the hooks as well.
  Agent: entry("trusted", "taint", "exec"),
  Task: entry("trusted", "taint", "exec"),
  Workflow: entry("trusted", "taint", "exec"),
  EnterWorktree: entry("trusted", "taint", "write"),
  ExitWorktree: entry("trusted", "taint", "write"),
  // A prompt that runs later is an instruction the owner did not give now.
  CronCreate: entry("trusted", "taint", "write"),
  CronDelete: entry("trusted", "taint", "write"),
  ScheduleWakeup: entry("trusted", "taint", "write"),
  RemoteTrigger: entry("external", "taint", "send"),
  SendMessage: entry("external", "taint", "send"),
  SendUserMessage: entry("trusted", "taint", "send"),
  PushNotification: entry("trusted", "taint", "send"),
  Config: entry("trusted", "dangerous", "exec"),
};

/**
 * Files Claude Code reads back as instructions or configuration on every later session
 * (memory files, settings with their hooks and permissions, agents, commands, skills, MCP
 * servers): workspace-relative patterns, and patterns relative to the user's home.
 */
export const CLAUDE_CODE_PROTECTED_PATTERNS: readonly string[] = Object.freeze(["**/CLAUDE.md", "**/CLAUDE.local.md", "**/AGENTS.md", ".claude/**", "**/.claude/skills/**", ".mcp.json"]);
export const CLAUDE_CODE_HOME_PROTECTED_PATTERNS: readonly string[] = Object.freeze([".claude/**", ".claude.json"]);
