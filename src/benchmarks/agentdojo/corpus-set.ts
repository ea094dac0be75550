import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { CorpusError, SUITES, loadCorpus, type SuiteData } from "./corpus.js";
import { parseToolPolicy, type ToolPolicyFile } from "./tool-policy-file.js";

/** One exported corpus with the tool policy it is replayed under, and the benchmark version its suites name. */
export interface VersionedCorpus {
  readonly version: string;
  readonly dir: string;
  readonly suites: readonly SuiteData[];
  readonly policy: ToolPolicyFile;
  readonly policyPath: string;
}

/**
 * The corpora under `dir`: `dir` itself when it holds suite files, else each folder in it that
 * does (`agentdojo-v1`, `agentdojo-v1.2.1`, ...). Each is replayed under `policyFile` when given,
 * else under its own `tool-policy.json`.
 */
export async function loadCorpora(dir: string, policyFile?: string): Promise<VersionedCorpus[]> {
  const entries = await readdir(dir, { withFileTypes: true }).catch((error: unknown) => {
    throw new CorpusError(`${dir}: ${(error as Error).message}`);
  });
  const holdsSuites = entries.some((e) => e.isFile() && (SUITES as readonly string[]).includes(e.name.replace(/\.json$/u, "")));
  const dirs = holdsSuites ? [dir] : entries.filter((e) => e.isDirectory()).map((e) => join(dir, e.name)).sort();
  const out: VersionedCorpus[] = [];
  for (const d of dirs) {
    const inner = await readdir(d).catch(() => [] as string[]);
    if (!inner.some((name) => (SUITES as readonly string[]).includes(name.replace(/\.json$/u, "")))) continue;
    const suites = await loadCorpus(d);
    const policyPath = policyFile ?? join(d, "tool-policy.json");
    const policy = parseToolPolicy(await readText(policyPath), policyPath);
    const version = suites.find((s) => s.benchmark_version !== undefined)?.benchmark_version ?? "v1";
    if (out.some((c) => c.version === version)) throw new CorpusError(`${d}: a second corpus for benchmark version ${version}`);
    out.push({ version, dir: d, suites, policy, policyPath });
  }
  if (out.length === 0) throw new CorpusError(`${dir}: no corpus (suite files ${SUITES.map((s) => `${s}.json`).join(", ")}) in it or in a folder of it`);
  return out;
}

/**
 * The corpus a run of benchmark `version` is replayed against: the one of that version, else the
 * one of its latest patch (`v1.2` → `v1.2.1`, whose tasks and goals are v1.2's; only security
 * checks changed). Undefined when there is none.
 */
export function corpusFor(corpora: readonly VersionedCorpus[], version: string): VersionedCorpus | undefined {
  const exact = corpora.find((c) => c.version === version);
  if (exact !== undefined) return exact;
  return corpora.filter((c) => c.version.startsWith(`${version}.`)).sort((a, b) => b.version.localeCompare(a.version, "en", { numeric: true }))[0];
}

async function readText(path: string): Promise<string> {
  try {
    return await readFile(path, "utf8");
  } catch (error) {
    throw new CorpusError(`${path}: ${(error as Error).message}`);
  }
}
