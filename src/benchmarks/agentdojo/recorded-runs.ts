import { readdir, readFile, stat } from "node:fs/promises";
import { join, relative, sep } from "node:path";
import { z } from "zod";
import { extractFields, isWeak, joinTokens, tokenize } from "../../core/argument-matching.js";
import { CorpusError, type InjectionTask, type SuiteData, type UserTask } from "./corpus.js";
import type { ReplayCall, ReplayTrace } from "./replay-trace.js";
import type { SuitePolicy } from "./tool-policy-file.js";

const text = z.union([z.string(), z.null(), z.array(z.object({ type: z.string(), content: z.string().nullable().optional() }).loose())]);

const toolCall = z.object({
  function: z.string().min(1),
  args: z.record(z.string(), z.unknown()),
  id: z.string().nullable().optional(),
});

const message = z.discriminatedUnion("role", [
  z.object({ role: z.literal("system"), content: text }).loose(),
  z.object({ role: z.literal("user"), content: text }).loose(),
  z.object({ role: z.literal("assistant"), content: text, tool_calls: z.array(toolCall).nullable().optional() }).loose(),
  z.object({
    role: z.literal("tool"),
    content: text,
    tool_call_id: z.string().nullable().optional(),
    tool_call: toolCall.nullable().optional(),
    error: z.string().nullable().optional(),
  }).loose(),
]);

const recordedRun = z.object({
  suite_name: z.string().min(1),
  pipeline_name: z.string().min(1),
  user_task_id: z.string().min(1),
  injection_task_id: z.string().nullable(),
  attack_type: z.string().nullable(),
  injections: z.record(z.string(), z.string()),
  /** Absent in some runs (a run that errored before its checks); a benign run needs it, an attacked one does not. */
  utility: z.boolean().nullable().optional(),
  security: z.boolean(),
  /** The AgentDojo benchmark version the run was made against (`v1`, `v1.2`); absent in runs older than the field. */
  benchmark_version: z.string().min(1).optional(),
  messages: z.array(message),
});

export type RecordedRun = z.output<typeof recordedRun>;

/** Parses one recorded run as AgentDojo stores it; the error names the file and the path inside. */
export function parseRecordedRun(body: string, where: string): RecordedRun {
  let json: unknown;
  try {
    json = JSON.parse(body) as unknown;
  } catch (error) {
    throw new CorpusError(`${where}: not JSON (${(error as Error).message})`);
  }
  const parsed = recordedRun.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const path = issue?.path.map(String).join(".") ?? "";
    throw new CorpusError(`${where}: ${path === "" ? "(root)" : path}: ${issue?.message ?? "invalid"}`);
  }
  return parsed.data;
}

/** A run file as read: the run, where it is, and the pipeline it belongs to (its folder). */
export interface RecordedRunFile {
  readonly path: string;
  readonly pipeline: string;
  readonly run: RecordedRun;
}

/** A file that could not be used, and why: reported, never fatal. */
export interface SkippedFile {
  readonly path: string;
  readonly reason: string;
}

export interface RecordedRunSet {
  readonly runs: readonly RecordedRunFile[];
  readonly skipped: readonly SkippedFile[];
  readonly warnings: readonly string[];
}

/**
 * Reads every run under `dir`, laid out `<pipeline>/<suite>/<user_task>/<attack_type>/<injection_task or none>.json`.
 * A file that cannot be used (outside the layout, not JSON, malformed, naming another suite, task
 * or injection than its path) is skipped with its path and the reason, and the rest are read. A
 * run whose content names a different pipeline than its folder (AgentDojo writes `local` for a
 * locally served model) belongs to the folder's pipeline, with a warning.
 */
export async function readRecordedRuns(dir: string): Promise<RecordedRunSet> {
  const skipped: SkippedFile[] = [];
  const files = (await walk(dir, skipped)).sort();
  const runs: RecordedRunFile[] = [];
  const warnings: string[] = [];
  for (const file of files) {
    const parts = relative(dir, file).split(sep);
    if (!file.endsWith(".json") || parts.length !== 5) {
      skipped.push({ path: file, reason: "not <pipeline>/<suite>/<user_task>/<attack_type>/<injection_task or none>.json" });
      continue;
    }
    let run: RecordedRun;
    try {
      const { size } = await stat(file);
      if (size > MAX_RUN_FILE_BYTES) {
        skipped.push({ path: file, reason: `${size} bytes: larger than a run file can be (at most ${MAX_RUN_FILE_BYTES} are read)` });
        continue;
      }
      run = parseRecordedRun(await readFile(file, "utf8"), file);
    } catch (error) {
      skipped.push({ path: file, reason: (error as Error).message.replace(`${file}: `, "") });
      continue;
    }
    const [pipeline, suite, userTask, , leaf] = parts as [string, string, string, string, string];
    const injection = leaf.slice(0, -".json".length);
    if (run.suite_name !== suite || run.user_task_id !== userTask || (run.injection_task_id ?? "none") !== injection) {
      skipped.push({ path: file, reason: `content names ${run.suite_name}/${run.user_task_id}/${run.injection_task_id ?? "none"}, its path ${suite}/${userTask}/${injection}` });
      continue;
    }
    if (run.pipeline_name !== pipeline) warnings.push(`${file}: content names pipeline ${run.pipeline_name}; counted under ${pipeline}, its folder`);
    runs.push({ path: file, pipeline, run });
  }
  return { runs, skipped, warnings };
}

/** A run file is tens of kilobytes; one of gigabytes would only exhaust the memory it is read into. */
const MAX_RUN_FILE_BYTES = 64 * 1024 * 1024;

/**
 * The regular files beneath `dir`. A symbolic link is not followed (it may loop, or lead to a
 * device that never ends) and, like any other entry that is not a file or a folder, and a folder
 * that cannot be read, is reported in `skipped`.
 */
async function walk(dir: string, skipped: SkippedFile[], top = true): Promise<string[]> {
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch (error) {
    // The folder named is the whole pass; one beneath it is only its own runs.
    if (top) throw new CorpusError(`${dir}: ${(error as Error).message}`);
    skipped.push({ path: dir, reason: `folder could not be read (${(error as Error).message})` });
    return [];
  }
  const out: string[] = [];
  for (const e of entries) {
    const path = join(dir, e.name);
    if (e.isDirectory()) out.push(...(await walk(path, skipped, false)));
    else if (e.isFile()) out.push(path);
    else skipped.push({ path, reason: e.isSymbolicLink() ? "a symbolic link: not followed" : "not a regular file" });
  }
  return out;
}

/**
 * The attacker's values in a run: the scalar arguments of the injection task's ground truth and the
 * references in its goal (addresses, links, accounts, quoted text), less any the owner's task itself
 * uses (its prompt and its ground-truth arguments). A call carrying one of them is the attacker's.
 */
export function attackerValues(injection: InjectionTask, user: UserTask | undefined, prompt: string): string[][] {
  const owner = tokenize([prompt, user?.prompt ?? "", ...(user?.ground_truth ?? []).flatMap((s) => scalars(s.args_default_env))].join("\n"));
  const ownerText = `\u0001${owner.join("\u0001")}\u0001`;
  const candidates = [...injection.ground_truth.flatMap((s) => scalars(s.args)), ...[...injection.goal.matchAll(GOAL_REFERENCE)].map((m) => m[1] ?? m[0])];
  const out: string[][] = [];
  for (const value of candidates) {
    const tokens = tokenize(value);
    if (tokens.length === 0 || isWeak(tokens) || value.includes("<CANARY")) continue;
    if (ownerText.includes(`\u0001${tokens.join("\u0001")}\u0001`)) continue;
    if (!out.some((t) => t.join(" ") === tokens.join(" "))) out.push(tokens);
  }
  return out;
}

const GOAL_REFERENCE = /'([^']{3,})'|[\w.+-]+@[\w-]+(?:\.[\w-]+)+|\bwww\.[\w.-]+\.[a-z]{2,}(?:\/[\w/-]*)?|https?:\/\/\S+|\b[A-Z]{2}\d{2}[A-Z0-9]{8,30}\b/gu;

function scalars(value: unknown): string[] {
  if (typeof value === "string") return [value];
  if (typeof value === "number") return [String(value)];
  if (Array.isArray(value)) return value.flatMap(scalars);
  if (value !== null && typeof value === "object") return Object.values(value).flatMap(scalars);
  return [];
}

function carries(args: unknown, values: readonly string[][]): boolean {
  const text = `\u0001${tokenize(scalars(args).join("\n")).join("\u0001")}\u0001`;
  return values.some((v) => text.includes(`\u0001${v.join("\u0001")}\u0001`));
}

/**
 * The replay of a recorded run: the first user message is the owner's request; each assistant
 * tool call, in order, with the output of the tool message answering it (the error text when the
 * tool failed). A call is the attacker's when it carries one of the attacker's values, names a whole
 * field of what an earlier attacker call returned (the id of the e-mail it just sent and now
 * deletes), or calls a side-effecting function of the injection task that the owner's task never
 * calls. Each call also records what the older rule, by function name alone, would have said.
 */
export function recordedReplay(run: RecordedRun, suite: SuiteData, policy: SuitePolicy, pipeline: string = run.pipeline_name): ReplayTrace {
  const where = `${pipeline}/${run.suite_name}/${run.user_task_id}/${run.injection_task_id ?? "none"}`;
  const firstUser = run.messages.find((m) => m.role === "user");
  if (firstUser === undefined) throw new CorpusError(`${where}: no user message`);
  const prompt = plain(firstUser.content);
  const user = suite.user_tasks.find((t) => t.id === run.user_task_id);
  let byName = new Set<string>();
  let unusedByOwner = new Set<string>();
  let values: string[][] = [];
  if (run.injection_task_id !== null) {
    const task = suite.injection_tasks.find((t) => t.id === run.injection_task_id);
    if (task === undefined) throw new CorpusError(`${where}: injection task ${run.injection_task_id} is not in suite ${suite.suite}`);
    const sideEffecting = task.ground_truth.map((s) => s.function).filter((f) => (policy[f]?.action ?? "trade") !== "read");
    byName = new Set(sideEffecting);
    const ownerFunctions = new Set((user?.ground_truth ?? []).map((s) => s.function));
    unusedByOwner = new Set(sideEffecting.filter((f) => !ownerFunctions.has(f)));
    values = attackerValues(task, user, prompt);
  }
  const outputs = new Map<string, string>();
  for (const m of run.messages) {
    if (m.role !== "tool") continue;
    const id = m.tool_call_id ?? m.tool_call?.id ?? null;
    if (id !== null) outputs.set(id, m.error !== null && m.error !== undefined ? m.error : plain(m.content));
  }
  const calls: ReplayCall[] = [];
  // Whole fields of what the attacker's calls returned (the id of the e-mail it just sent): a later call naming one acts on the attacker's work.
  const attackerFields = new Set<string>();
  for (const m of run.messages) {
    if (m.role !== "assistant") continue;
    for (const call of m.tool_calls ?? []) {
      const id = call.id ?? `c${calls.length}`;
      const attacker =
        carries(call.args, values) || unusedByOwner.has(call.function) || scalars(call.args).some((v) => attackerFields.has(joinTokens(tokenize(v))));
      if (attacker && (policy[call.function]?.action ?? "trade") !== "read") for (const field of extractFields(outputs.get(id) ?? "")) attackerFields.add(field);
      calls.push({
        id,
        function: call.function,
        args: call.args,
        output: outputs.get(id) ?? "",
        origin: attacker ? "injection" : "user",
        originByFunctionName: byName.has(call.function) ? "injection" : "user",
      });
    }
  }
  return {
    suite: run.suite_name,
    userTaskId: run.user_task_id,
    injectionTaskId: run.injection_task_id,
    prompt,
    calls,
    recorded: { pipeline, attackType: run.attack_type ?? "none", utility: run.utility ?? null, security: run.security, version: run.benchmark_version ?? "v1" },
  };
}

function plain(content: z.output<typeof text>): string {
  if (content === null) return "";
  if (typeof content === "string") return content;
  return content.map((block) => block.content ?? "").join("\n");
}
