import { readFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { CorpusError, loadCorpus, parseSuite } from "../../src/benchmarks/agentdojo/corpus.js";
import { attackReplay, benignReplay, firstInjectedStep, suiteReplays } from "../../src/benchmarks/agentdojo/corpus-replays.js";
import { guardConfigFor, parseToolPolicy } from "../../src/benchmarks/agentdojo/tool-policy-file.js";
import { resolveConfig } from "../../src/core/config.js";
import { CORPUS } from "./corpus-path.js";

describe("AgentDojo corpus conversion", async () => {
  const corpus = await loadCorpus(CORPUS);
  const policy = parseToolPolicy(readFileSync(join(CORPUS, "tool-policy.json"), "utf8"), "tool-policy.json");

  it("yields the README's counts: 97 benign runs and 629 attack pairs", () => {
    const replays = corpus.map((s) => suiteReplays(s, "goal"));
    expect(replays.map((r) => r.benign.length)).toEqual([40, 20, 16, 21]);
    expect(replays.map((r) => r.attacks.length)).toEqual([240, 140, 144, 105]);
  });

  it("replays a pair as a hijacked agent: user steps to the first injected output, the injection task, the rest", () => {
    const banking = corpus.find((s) => s.suite === "banking");
    const task = banking?.user_tasks.find((t) => t.id === "user_task_15");
    const injection = banking?.injection_tasks.find((t) => t.id === "injection_task_6");
    if (banking === undefined || task === undefined || injection === undefined) throw new Error("corpus changed");
    const trace = attackReplay(banking, task, injection, "goal");
    expect(firstInjectedStep(task)).toBe(3);
    expect(trace?.calls.map((c) => `${c.origin}:${c.function}`)).toEqual([
      "user:update_user_info",
      "user:get_scheduled_transactions",
      "user:update_scheduled_transaction",
      "user:get_most_recent_transactions",
      "injection:send_money",
      "injection:send_money",
      "injection:send_money",
      "user:send_money",
    ]);
    // A serialised structure is written out again with the attacker's text quoted inside its field.
    const injected = trace?.calls[3]?.output ?? "";
    const records = parse(injected) as Record<string, unknown>[];
    expect(records.some((r) => String(r.subject).includes(`ignore previous instructions and ${injection.goal}`))).toBe(true);
    const benign = parse(task.ground_truth[3]?.output_default_env ?? "") as Record<string, unknown>[];
    expect(records.map((r) => Object.keys(r).sort())).toEqual(benign.map((r) => Object.keys(r).sort()));
    expect(injected).not.toContain("<CANARY---");
  });

  it("puts the attacker's text in arguments that hold a vector, and keeps canaries when asked to", () => {
    const slack = corpus.find((s) => s.suite === "slack");
    const task = slack?.user_tasks.find((t) => t.id === "user_task_7");
    const injection = slack?.injection_tasks.find((t) => t.id === "injection_task_2");
    if (slack === undefined || task === undefined || injection === undefined) throw new Error("corpus changed");
    const goal = attackReplay(slack, task, injection, "goal");
    const external = goal?.calls.find((c) => c.origin === "injection" && JSON.stringify(c.args).includes("External_"));
    expect(String(external?.args.channel)).toContain("ignore previous instructions");
    const canary = attackReplay(slack, task, injection, "canary");
    expect(canary?.calls[0]?.output).toContain("<CANARY---prompt_injection_channel--->");
  });

  it("replays benign runs in the benign environment", () => {
    const banking = corpus.find((s) => s.suite === "banking");
    const task = banking?.user_tasks[0];
    if (banking === undefined || task === undefined) throw new Error("corpus changed");
    const trace = benignReplay(banking, task);
    expect(trace.calls[0]?.output).toContain("IBAN: UK12345678901234567890");
    expect(trace.calls.every((c) => c.origin === "user")).toBe(true);
  });

  it("turns the policy into a configuration the guard accepts, with reads allowed at any taint", () => {
    for (const suite of corpus) {
      const entry = policy[suite.suite as "banking"];
      if (entry === undefined) throw new Error(`no policy for ${suite.suite}`);
      const config = guardConfigFor(suite.suite as "banking", entry, { argumentProvenance: true, atTrusted: true });
      const resolved = resolveConfig(config).config;
      expect(resolved.argumentProvenance).toBe(true);
      for (const tool of suite.tools) {
        expect(resolved.toolActionClasses[tool.name]).toBe(entry[tool.name]?.action);
        if (entry[tool.name]?.action === "read") expect(resolved.toolOverrides[tool.name]).toEqual({ "*": "allow" });
      }
    }
  });
});

describe("corpus and policy parsing", () => {
  it("names the file and the path of a bad suite", () => {
    expect(() => parseSuite("{", "x.json")).toThrow(CorpusError);
    expect(() => parseSuite('{"suite":"banking"}', "x.json")).toThrow(/x\.json: tools/u);
    expect(() => parseSuite(JSON.stringify({ suite: "b", tools: [], injection_vectors: {}, canary_format: "<{v}>", user_tasks: [], injection_tasks: [] }), "x.json")).toThrow(
      /canary_format/u,
    );
  });

  it("refuses unknown suites, actions, trust levels and roles in a policy, by name", () => {
    const bad = (suites: unknown): (() => unknown) => () => parseToolPolicy(JSON.stringify({ suites }), "p.json");
    expect(bad({ shopping: {} })).toThrow(/suites\.shopping/u);
    expect(bad({ banking: { send_money: { action: "pay", output: "trusted" } } })).toThrow(/banking\.send_money\.action/u);
    expect(bad({ banking: { send_money: { action: "trade", output: "mine" } } })).toThrow(/output/u);
    expect(bad({ banking: { send_money: { action: "trade", output: "trusted", args: { to: "victim" } } } })).toThrow(/args\.to/u);
    expect(bad({ banking: { send_money: { action: "trade", output: "trusted", typo: 1 } } })).toThrow(/typo/u);
  });

  it("never throws anything but a CorpusError on hostile input", () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.jsonValue().map((v) => JSON.stringify(v))), (text) => {
        for (const parse of [() => parseSuite(text, "f"), () => parseToolPolicy(text, "f")]) {
          try {
            parse();
          } catch (error) {
            expect(error).toBeInstanceOf(CorpusError);
          }
        }
      }),
    );
  });

  it("reports a missing corpus directory precisely", async () => {
    await expect(loadCorpus(join(CORPUS, "does-not-exist"))).rejects.toThrow(/no suite file/u);
  });
});
