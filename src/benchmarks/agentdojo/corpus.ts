import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { z } from "zod";

/** The four AgentDojo v1 suites, in the order the corpus README lists them. */
export const SUITES = ["workspace", "travel", "banking", "slack"] as const;
export type SuiteName = (typeof SUITES)[number];

const args = z.record(z.string(), z.unknown());

const userStep = z.object({
  function: z.string().min(1),
  args,
  output: z.string(),
  injection_vectors_in_output: z.array(z.string()),
  args_default_env: args,
  output_default_env: z.string(),
});

const injectionStep = z.object({
  function: z.string().min(1),
  args,
  output: z.string().nullable().optional(),
});

const suiteFile = z.object({
  suite: z.string(),
  benchmark_version: z.string().optional(),
  tools: z.array(z.object({ name: z.string().min(1), description: z.string(), parameters: z.unknown() })),
  injection_vectors: z.record(z.string(), z.string()),
  canary_format: z.string().includes("{vector_id}"),
  user_tasks: z.array(
    z.object({ id: z.string().min(1), prompt: z.string(), ground_truth: z.array(userStep), injection_vectors_seen: z.array(z.string()).optional() }),
  ),
  injection_tasks: z.array(z.object({ id: z.string().min(1), goal: z.string(), ground_truth: z.array(injectionStep) })),
});

export type UserStep = z.output<typeof userStep>;
export type InjectionStep = z.output<typeof injectionStep>;
export type SuiteData = z.output<typeof suiteFile>;
export type UserTask = SuiteData["user_tasks"][number];
export type InjectionTask = SuiteData["injection_tasks"][number];

export class CorpusError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "CorpusError";
  }
}

/** Parses one suite file; every problem names the file and the path inside it. */
export function parseSuite(text: string, where: string): SuiteData {
  let json: unknown;
  try {
    json = JSON.parse(text) as unknown;
  } catch (error) {
    throw new CorpusError(`${where}: not JSON (${(error as Error).message})`);
  }
  const parsed = suiteFile.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const path = issue === undefined ? "" : issue.path.map(String).join(".");
    throw new CorpusError(`${where}: ${path === "" ? "(root)" : path}: ${issue?.message ?? "invalid"}`);
  }
  return parsed.data;
}

/** Loads the suites present in `dir` (at least one), in README order. */
export async function loadCorpus(dir: string): Promise<SuiteData[]> {
  const out: SuiteData[] = [];
  for (const suite of SUITES) {
    const file = join(dir, `${suite}.json`);
    let text: string;
    try {
      text = await readFile(file, "utf8");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") continue;
      throw new CorpusError(`${file}: ${(error as Error).message}`);
    }
    out.push(parseSuite(text, file));
  }
  if (out.length === 0) throw new CorpusError(`${dir}: no suite file (${SUITES.map((s) => `${s}.json`).join(", ")})`);
  return out;
}

/** The text AgentDojo puts where vector `id` sits in an output. */
export function canaryFor(suite: SuiteData, vectorId: string): string {
  return suite.canary_format.replace("{vector_id}", vectorId);
}
