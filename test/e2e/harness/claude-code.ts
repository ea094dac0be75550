import { execFileSync, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { REPO } from "./openclaw.js";

let binary: string | undefined;

/** The pinned Claude Code, installed into the cache on first use (see scripts/claude-code-e2e-install.sh). */
export function claudeBinary(): string {
  if (binary === undefined) {
    const out = execFileSync("bash", [join(REPO, "scripts/claude-code-e2e-install.sh")], { encoding: "utf8", stdio: ["ignore", "pipe", "inherit"], timeout: 600_000 });
    binary = out.trim();
    if (binary === "") throw new Error("claude-code-e2e-install.sh printed nothing");
  }
  return binary;
}

/** A user's machine in miniature: a home directory and a project in it. */
export interface ClaudeHome {
  readonly home: string;
  readonly project: string;
}

export function claudeHome(prefix = "provenant-cc-"): ClaudeHome {
  const home = mkdtempSync(join(tmpdir(), prefix));
  const project = join(home, "project");
  mkdirSync(project);
  return { home, project };
}

/** One line of `--output-format stream-json`. */
export type StreamEvent = Readonly<Record<string, unknown>> & { readonly type?: unknown; readonly subtype?: unknown };

export interface ClaudeRun {
  readonly code: number | null;
  readonly events: readonly StreamEvent[];
  readonly stdout: string;
  readonly stderr: string;
}

export interface ClaudeRunOptions {
  readonly home: ClaudeHome;
  readonly modelUrl: string;
  readonly prompt: string;
  readonly args?: readonly string[];
  readonly env?: Readonly<Record<string, string>>;
  /**
   * The prompt as one `--input-format stream-json` user message with these blocks after the
   * prompt's text (an image, a document), as the Agent SDK sends a chat app's upload.
   */
  readonly attached?: readonly Readonly<Record<string, unknown>>[];
  /** A second stream-json message, sent `afterMs` after the first while its turn runs (Claude Code queues it into the turn). */
  readonly queued?: { readonly afterMs: number; readonly text: string; readonly attached?: readonly Readonly<Record<string, unknown>>[] };
}

const streamMessage = (text: string, attached: readonly Readonly<Record<string, unknown>>[] = []): string =>
  `${JSON.stringify({ type: "user", message: { role: "user", content: [{ type: "text", text }, ...attached] } })}\n`;

/**
 * `claude -p <prompt> --output-format stream-json --verbose` in the project, against the scripted
 * model: an API key that is not one, no traffic beyond the model, HOME in the temporary home.
 */
export function runClaude(options: ClaudeRunOptions): Promise<ClaudeRun> {
  const streamed = options.attached !== undefined || options.queued !== undefined;
  const prompt = streamed ? ["--input-format", "stream-json"] : [options.prompt];
  const args = ["-p", ...prompt, "--output-format", "stream-json", "--verbose", ...(options.args ?? [])];
  const child = spawn(claudeBinary(), args, {
    cwd: options.home.project,
    detached: true,
    stdio: [streamed ? "pipe" : "ignore", "pipe", "pipe"],
    env: {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      HOME: options.home.home,
      ANTHROPIC_BASE_URL: options.modelUrl,
      ANTHROPIC_API_KEY: "sk-ant-provenant-e2e-not-a-key",
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
      DISABLE_AUTOUPDATER: "1",
      ...options.env,
    },
  });
  if (streamed) child.stdin?.write(streamMessage(options.prompt, options.attached));
  const { queued } = options;
  if (queued === undefined) child.stdin?.end();
  else setTimeout(() => child.stdin?.end(streamMessage(queued.text, queued.attached)), queued.afterMs);
  let stdout = "";
  let stderr = "";
  child.stdout?.setEncoding("utf8").on("data", (d: string) => (stdout += d));
  child.stderr?.setEncoding("utf8").on("data", (d: string) => (stderr += d));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
      reject(new Error(`claude did not finish in 120 s\nstdout: ${stdout.slice(-4000)}\nstderr: ${stderr.slice(-4000)}`));
    }, 120_000);
    child.on("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on("close", (code) => {
      clearTimeout(timer);
      const events = stdout
        .split("\n")
        .filter((line) => line.trim() !== "")
        .map((line) => JSON.parse(line) as StreamEvent);
      resolve({ code, events, stdout, stderr });
    });
  });
}

/** The tool calls the model made, in order, with their inputs. */
export function toolUses(run: ClaudeRun): { readonly name: string; readonly input: Readonly<Record<string, unknown>> }[] {
  return run.events.flatMap((e) => {
    if (e.type !== "assistant") return [];
    const content = (e.message as { content?: unknown } | undefined)?.content;
    if (!Array.isArray(content)) return [];
    return content.flatMap((b: { type?: unknown; name?: unknown; input?: unknown }) =>
      b.type === "tool_use" && typeof b.name === "string" ? [{ name: b.name, input: (b.input ?? {}) as Record<string, unknown> }] : [],
    );
  });
}
