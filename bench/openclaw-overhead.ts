/**
 * What provenant adds to an OpenClaw turn, measured inside real OpenClaw (the pinned e2e install):
 * two loopback gateways on the same machine, one with the plugin and one without, the same
 * scripted turns through each, interleaved. Per turn: the run's own duration as the gateway
 * reports it (`meta.durationMs`). Per tool call: the gap between the model request that asked
 * for a `read` and the next one (hooks + tool + OpenClaw's loop), as the scripted model sees it.
 * Also, in process and without OpenClaw, the plugin's own work per hook (median of many).
 * Also, each an OpenClaw process of its own, one-shot `openclaw agent --local` turns: what the
 * plugin adds to a start (OpenClaw copies and hashes every file a plugin loads, each time it
 * starts), with the bundled entry the package names and, for comparison, the entry as compiled.
 * Target (issue 7): under 5 ms added per tool call.
 * Run: npm run build && npx tsx bench/openclaw-overhead.ts [turns=40] [starts=5]
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { registerProvenant } from "../src/adapters/openclaw/provenant-plugin.js";
import type { HookHandlers, HookName, PluginApi, TrustedToolPolicy } from "../src/adapters/openclaw/sdk-types.js";
import { Guard } from "../src/guard.js";
import { startModelServer, type ModelServer } from "../test/e2e/harness/model-server.js";
import { openClawInstall, OpenClawHome } from "../test/e2e/harness/openclaw.js";
import { median, printTable } from "./lib/stats.js";

const TURNS = Number(process.argv[2] ?? 40);
const STARTS = Number(process.argv[3] ?? 5);
const CALLS_PER_TURN = 4;

interface Side {
  readonly name: string;
  readonly model: ModelServer;
  readonly home: OpenClawHome;
  readonly turnMs: number[];
  readonly callMs: number[];
}

async function side(name: string, withPlugin: boolean): Promise<Side> {
  const model = await startModelServer();
  const home = new OpenClawHome(`bench-${name}`, { modelUrl: model.url, provenant: withPlugin ? {} : null });
  await home.writeConfig();
  writeFileSync(join(home.workspace, "notes.txt"), "bench\n");
  await home.startGateway();
  return { name, model, home, turnMs: [], callMs: [] };
}

async function turn(s: Side, i: number): Promise<void> {
  const reads = Array.from({ length: CALLS_PER_TURN }, () => `CALL read {"path":"notes.txt"}`).join("\n");
  const before = s.model.requests.length;
  const reply = await s.home.agent(`turn ${i}\n${reads}`, { local: false, sessionKey: `agent:main:bench-${i}` });
  const meta = (reply.raw as { result?: { meta?: { durationMs?: unknown } } }).result?.meta;
  if (typeof meta?.durationMs === "number") s.turnMs.push(meta.durationMs);
  const requests = s.model.requests.slice(before);
  for (let k = 1; k < requests.length; k++) {
    const prev = requests[k - 1];
    const next = requests[k];
    if (prev !== undefined && next !== undefined && next.lastRole === "tool") s.callMs.push(next.at - prev.at);
  }
}

/**
 * A system prompt as OpenClaw 2026.9.6 writes one for a default workspace: its bootstrap files
 * whole (each under its path) and twenty skills listed by location, all of them real files.
 */
function openClawPrompt(workspace: string): string {
  const files = ["AGENTS.md", "SOUL.md", "IDENTITY.md", "USER.md", "MEMORY.md"].map((name) => join(workspace, name));
  const skills = Array.from({ length: 20 }, (_, i) => join(workspace, "skills", `skill-${i}`, "SKILL.md"));
  for (const file of [...files, ...skills]) {
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, "# x\n");
  }
  const listed = skills.map((location, i) => `  <skill>\n    <name>skill-${i}</name>\n    <description>d</description>\n    <location>${location}</location>\n  </skill>`);
  const context = files.flatMap((file) => [`## ${file}`, "", "# x", ""]);
  return ["You are a personal assistant running inside OpenClaw.", "<available_skills>", ...listed, "</available_skills>", "# Project Context", "", "Loaded project context:", "", ...context].join("\n");
}

function inProcess(): { hook: string; us: number }[] {
  // The baseline turns run in a workspace with no files in the prompt, the others in one with
  // OpenClaw's default set, so the second row's extra is the judging of those files.
  const bare = mkdtempSync(join(tmpdir(), "provenant-bench-bare-"));
  const workspace = mkdtempSync(join(tmpdir(), "provenant-bench-"));
  const systemPrompt = openClawPrompt(workspace);
  const hooks = new Map<HookName, HookHandlers[HookName]>();
  let policy: TrustedToolPolicy | null = null;
  const api: PluginApi = {
    id: "provenant",
    pluginConfig: {},
    config: { plugins: { entries: { provenant: { hooks: { allowConversationAccess: true } } } } },
    logger: { info: () => undefined, warn: () => undefined, error: () => undefined },
    on: ((name: HookName, handler: HookHandlers[HookName]) => hooks.set(name, handler)) as PluginApi["on"],
    registerCommand: () => undefined,
    registerTool: () => undefined,
    registerTrustedToolPolicy: (p) => {
      policy = p;
    },
    registerAgentToolResultMiddleware: () => undefined,
    registerService: () => undefined,
  };
  registerProvenant(api, (dir, logger) => Guard.open({ config: {}, workspaceDir: dir, logger }));
  const get = <K extends HookName>(k: K) => hooks.get(k) as HookHandlers[K];
  const evaluate = (policy as TrustedToolPolicy | null)?.evaluate;
  if (evaluate === undefined) throw new Error("no policy");
  const withoutPrompt = "turn start (prompt build + agent run), no files in the prompt";
  const withPrompt = "turn start, the prompt's 5 workspace files and 20 skills judged";
  const times: Record<string, number[]> = { [withoutPrompt]: [], [withPrompt]: [], "tool call (before + after)": [], "turn end": [] };
  for (let i = 0; i < 2000; i++) {
    // Alternate turns give the host's prompt, so drift hits both rows alike.
    const prompted = i % 2 === 1;
    const ctx = { sessionId: `s${i % 50}`, sessionKey: `agent:main:s${i % 50}`, agentId: "main", workspaceDir: prompted ? workspace : bare, trigger: "user" };
    let t = performance.now();
    get("before_prompt_build")({ prompt: "hi", messages: [] }, ctx);
    get("before_agent_run")({ prompt: "hi", messages: [], senderIsOwner: true, ...(prompted ? { systemPrompt } : {}) }, ctx);
    times[prompted ? withPrompt : withoutPrompt]?.push(performance.now() - t);
    for (let k = 0; k < CALLS_PER_TURN; k++) {
      t = performance.now();
      const tctx = { toolName: "read", sessionId: ctx.sessionId, sessionKey: ctx.sessionKey, toolCallId: `c${k}`, requester: { senderIsOwner: true } };
      evaluate({ toolName: "read", params: { path: "notes.txt" } }, tctx);
      get("after_tool_call")({ toolName: "read", params: { path: "notes.txt" }, result: { content: "bench" } }, tctx);
      times["tool call (before + after)"]?.push(performance.now() - t);
    }
    t = performance.now();
    get("agent_end")({ messages: [], success: true }, ctx);
    times["turn end"]?.push(performance.now() - t);
  }
  for (const dir of [bare, workspace]) rmSync(dir, { recursive: true, force: true });
  return Object.entries(times).map(([hook, xs]) => ({ hook, us: median(xs.slice(xs.length / 10)) * 1000 }));
}

async function main(): Promise<void> {
  console.log("## provenant's own work per hook, in process (median of 1800 turns; the turn starts, 900 each)\n");
  const rows = inProcess();
  const baseline = rows[0]?.us ?? NaN;
  printTable(["hook", "median µs", "ratio to the first row"], rows.map((r) => [r.hook, r.us.toFixed(1), (r.us / baseline).toFixed(2)]));

  openClawInstall();
  const off = await side("off", false);
  const on = await side("on", true);
  try {
    for (const s of [off, on]) await turn(s, -1); // warm-up: first-run costs land in neither sample
    off.turnMs.length = on.turnMs.length = off.callMs.length = on.callMs.length = 0;
    for (let i = 0; i < TURNS; i++) {
      // Interleaved, alternating who goes first, so drift in machine load hits both sides alike.
      const order = i % 2 === 0 ? [off, on] : [on, off];
      for (const s of order) await turn(s, i);
    }
  } finally {
    for (const s of [off, on]) {
      await s.home.dispose();
      await s.model.close();
    }
  }
  const row = (label: string, a: number[], b: number[]) => {
    const ma = median(a);
    const mb = median(b);
    return [label, a.length, ma.toFixed(1), mb.toFixed(1), (mb - ma).toFixed(1), (mb / ma).toFixed(3)];
  };
  console.log(`\n## inside OpenClaw 2026.9.6, loopback gateway, ${TURNS} turns of ${CALLS_PER_TURN} read calls each\n`);
  printTable(["measure", "samples", "without (ms)", "with provenant (ms)", "added (ms)", "ratio"], [
    row("turn (gateway run duration)", off.turnMs, on.turnMs),
    row("tool call (model request to next)", off.callMs, on.callMs),
  ]);
  await starts();
}

/** One-shot `openclaw agent --local` turns, a process each: without the plugin, with it as packaged, and with its entry as compiled. */
async function starts(): Promise<void> {
  const model = await startModelServer();
  const homes = {
    without: new OpenClawHome("bench-start-off", { modelUrl: model.url, provenant: null }),
    bundled: new OpenClawHome("bench-start-bundled", { modelUrl: model.url, provenant: {} }),
    compiled: new OpenClawHome("bench-start-compiled", { modelUrl: model.url, provenant: {} }),
  };
  const ms: Record<keyof typeof homes, number[]> = { without: [], bundled: [], compiled: [] };
  try {
    for (const home of Object.values(homes)) await home.writeConfig();
    // The same package, its entry put back to the compiled module the bundle is made from.
    const manifest = join(homes.compiled.root, "provenant-package", "package.json");
    const pkg = JSON.parse(readFileSync(manifest, "utf8")) as { openclaw: { extensions: string[] } };
    writeFileSync(manifest, JSON.stringify({ ...pkg, openclaw: { ...pkg.openclaw, extensions: ["./dist/adapters/openclaw/index.js"] } }));
    const names = Object.keys(homes) as (keyof typeof homes)[];
    for (let i = -1; i < STARTS; i++) {
      for (const name of i % 2 === 0 ? names : [...names].reverse()) {
        const started = Date.now();
        await homes[name].agent(`start ${i}\nCALL read {"path":"AGENTS.md"}`, { local: true, sessionKey: `agent:main:start-${i}` });
        if (i >= 0) ms[name].push(Date.now() - started); // the first round warms the disk cache
      }
    }
  } finally {
    for (const home of Object.values(homes)) await home.dispose();
    await model.close();
  }
  const base = median(ms.without);
  console.log(`\n## one-shot \`openclaw agent --local\` turns, a process each (${STARTS} each, interleaved)\n`);
  printTable(
    ["plugin", "median (ms)", "added (ms)", "ratio to without"],
    Object.entries(ms).map(([name, xs]) => [name === "without" ? "installed, disabled" : `on, entry ${name}`, median(xs).toFixed(0), (median(xs) - base).toFixed(0), (median(xs) / base).toFixed(2)]),
  );
}

await main();
