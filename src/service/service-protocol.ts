import type { HookAnswer } from "../adapters/claude-code/hook-answer.js";

/**
 * The guard service's wire format: one JSON line each way on a fresh connection. The request
 * carries the hook's raw input untouched (the service parses it as the hook would), the answer
 * what the hook prints and its exit code. Before the answer the service may send
 * `{"waiting":{"until":<epoch ms>}}` lines: a held call waits for the owner's answer in the console
 * until then, and the hook keeps the connection open that long. The hook closing the connection
 * ends the wait.
 */
export interface ServiceRequest {
  readonly input: string;
  readonly configPath: string | null;
  /** The hook's `CLAUDE_PROJECT_DIR`, when Claude Code set one. */
  readonly projectDir: string | null;
  /** How long the hook can wait for the owner's answer to a held call (0, or absent: it cannot). */
  readonly waitBudgetMs?: number;
}

/** Longer than any hook timeout provenant installs: a budget past it is not one a hook could have. */
export const MAX_WAIT_BUDGET_MS = 10 * 60_000;

/** A request line is a hook event and a little more: larger is not one. */
export const MAX_REQUEST_BYTES = 70 * 1024 * 1024;

export function parseServiceRequest(line: string): ServiceRequest | null {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return null;
  }
  if (value === null || typeof value !== "object") return null;
  const { input, configPath, projectDir, waitBudgetMs } = value as Record<string, unknown>;
  if (typeof input !== "string") return null;
  if (configPath !== null && typeof configPath !== "string") return null;
  if (projectDir !== null && typeof projectDir !== "string") return null;
  if (waitBudgetMs !== undefined && !(typeof waitBudgetMs === "number" && Number.isInteger(waitBudgetMs) && waitBudgetMs >= 0 && waitBudgetMs <= MAX_WAIT_BUDGET_MS)) return null;
  return { input, configPath, projectDir, ...(waitBudgetMs === undefined ? {} : { waitBudgetMs }) };
}

export function waitingLine(until: number): string {
  return `${JSON.stringify({ waiting: { until } })}\n`;
}

/** The `until` of a waiting line, or null when the line is not one. */
export function parseWaitingLine(line: string): number | null {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return null;
  }
  if (value === null || typeof value !== "object" || !Object.hasOwn(value, "waiting")) return null;
  const waiting = (value as { waiting: unknown }).waiting;
  const until = waiting !== null && typeof waiting === "object" ? (waiting as { until?: unknown }).until : undefined;
  return typeof until === "number" && Number.isFinite(until) ? until : null;
}

export function parseServiceAnswer(text: string): HookAnswer | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  if (value === null || typeof value !== "object") return null;
  const { exitCode, stdout, stderr } = value as Record<string, unknown>;
  if ((exitCode !== 0 && exitCode !== 1 && exitCode !== 2) || typeof stdout !== "string" || typeof stderr !== "string") return null;
  return { exitCode, stdout, stderr };
}
