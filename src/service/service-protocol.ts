import type { HookAnswer } from "../adapters/claude-code/hook-answer.js";

/**
 * The guard service's wire format: one JSON line each way on a fresh connection. The request
 * carries the hook's raw input untouched (the service parses it as the hook would), the answer
 * what the hook prints and its exit code.
 */
export interface ServiceRequest {
  readonly input: string;
  readonly configPath: string | null;
  /** The hook's `CLAUDE_PROJECT_DIR`, when Claude Code set one. */
  readonly projectDir: string | null;
}

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
  const { input, configPath, projectDir } = value as Record<string, unknown>;
  if (typeof input !== "string") return null;
  if (configPath !== null && typeof configPath !== "string") return null;
  if (projectDir !== null && typeof projectDir !== "string") return null;
  return { input, configPath, projectDir };
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
