import { readdir, readFile } from "node:fs/promises";
import { join, relative, sep } from "node:path";
import { z } from "zod";
import { CorpusError, type SuiteData } from "./corpus.js";
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
  utility: z.boolean(),
  security: z.boolean(),
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

/**
 * Reads every run under `dir`, laid out `<pipeline>/<suite>/<user_task>/<attack_type>/<injection_task or none>.json`.
 * A file elsewhere in the tree, or one whose content disagrees with its path, is an error.
 */
export async function readRecordedRuns(dir: string): Promise<RecordedRun[]> {
  const files = (await walk(dir)).filter((f) => f.endsWith(".json")).sort();
  const runs: RecordedRun[] = [];
  for (const file of files) {
    const parts = relative(dir, file).split(sep);
    if (parts.length !== 5) throw new CorpusError(`${file}: expected <pipeline>/<suite>/<user_task>/<attack_type>/<injection_task or none>.json`);
    const run = parseRecordedRun(await readFile(file, "utf8"), file);
    const [pipeline, suite, userTask, , leaf] = parts as [string, string, string, string, string];
    const injection = leaf.slice(0, -".json".length);
    if (run.pipeline_name !== pipeline || run.suite_name !== suite || run.user_task_id !== userTask || (run.injection_task_id ?? "none") !== injection) {
      throw new CorpusError(`${file}: content names ${run.pipeline_name}/${run.suite_name}/${run.user_task_id}/${run.injection_task_id ?? "none"}, path disagrees`);
    }
    runs.push(run);
  }
  if (runs.length === 0) throw new CorpusError(`${dir}: no recorded runs found`);
  return runs;
}

async function walk(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true }).catch((error: unknown) => {
    throw new CorpusError(`${dir}: ${(error as Error).message}`);
  });
  const out: string[] = [];
  for (const e of entries) {
    const path = join(dir, e.name);
    if (e.isDirectory()) out.push(...(await walk(path)));
    else if (e.isFile()) out.push(path);
  }
  return out;
}

/**
 * The replay of a recorded run: the first user message is the owner's request; each assistant
 * tool call, in order, with the output of the tool message answering it (the error text when the
 * tool failed). A call counts as the attacker's when it names a side-effecting function of the
 * run's injection task, as the corpus lists it.
 */
export function recordedReplay(run: RecordedRun, suite: SuiteData, policy: SuitePolicy): ReplayTrace {
  const where = `${run.pipeline_name}/${run.suite_name}/${run.user_task_id}/${run.injection_task_id ?? "none"}`;
  const firstUser = run.messages.find((m) => m.role === "user");
  if (firstUser === undefined) throw new CorpusError(`${where}: no user message`);
  let attackerFunctions = new Set<string>();
  if (run.injection_task_id !== null) {
    const task = suite.injection_tasks.find((t) => t.id === run.injection_task_id);
    if (task === undefined) throw new CorpusError(`${where}: injection task ${run.injection_task_id} is not in suite ${suite.suite}`);
    attackerFunctions = new Set(task.ground_truth.map((s) => s.function).filter((f) => (policy[f]?.action ?? "trade") !== "read"));
  }
  const outputs = new Map<string, string>();
  for (const m of run.messages) {
    if (m.role !== "tool") continue;
    const id = m.tool_call_id ?? m.tool_call?.id ?? null;
    if (id !== null) outputs.set(id, m.error !== null && m.error !== undefined ? m.error : plain(m.content));
  }
  const calls: ReplayCall[] = [];
  for (const m of run.messages) {
    if (m.role !== "assistant") continue;
    for (const call of m.tool_calls ?? []) {
      const id = call.id ?? `c${calls.length}`;
      calls.push({
        id,
        function: call.function,
        args: call.args,
        output: outputs.get(id) ?? "",
        origin: attackerFunctions.has(call.function) ? "injection" : "user",
      });
    }
  }
  return {
    suite: run.suite_name,
    userTaskId: run.user_task_id,
    injectionTaskId: run.injection_task_id,
    prompt: plain(firstUser.content),
    calls,
    recorded: { pipeline: run.pipeline_name, attackType: run.attack_type ?? "none", utility: run.utility, security: run.security },
  };
}

function plain(content: z.output<typeof text>): string {
  if (content === null) return "";
  if (typeof content === "string") return content;
  return content.map((block) => block.content ?? "").join("\n");
}
