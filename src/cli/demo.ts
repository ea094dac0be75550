import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Command } from "commander";
import type { ReplayStep } from "../adapters/replay/replay-runner.js";
import type { TrustLevel } from "../core/trust-levels.js";
import { TRUST_EMOJI } from "../core/trust-levels.js";
import { exitWith } from "./exit.js";
import { replayFile } from "./replay.js";
import { displayJson } from "../core/safe-display.js";

const DEMO_TRACE = fileURLToPath(new URL("../../examples/demo.jsonl", import.meta.url));

type Paint = (code: string, text: string) => string;

function painter(enabled: boolean): Paint {
  return enabled ? (code, text) => `\x1b[${code}m${text}\x1b[0m` : (_code, text) => text;
}

const TAINT_COLOUR: Record<TrustLevel, string> = { trusted: "32", shared: "33", external: "38;5;208", untrusted: "31" };
const VERDICT_COLOUR = { allow: "32;1", confirm: "33;1", block: "31;1" } as const;

/** One readable line (or block) per step of the trace. */
export function describeStep(step: ReplayStep, paint: Paint): string {
  const taint = (t: TrustLevel) => `${TRUST_EMOJI[t]} ${paint(TAINT_COLOUR[t], t)}`;
  switch (step.kind) {
    case "turn": {
      const who = step.event.sender?.isOwner ? "owner" : step.event.sender?.id ? `sender ${step.event.sender.id}` : "unknown sender";
      const lines = [
        "",
        paint("1", `Turn ${step.start.turnId}`) + `  ${who} via ${step.event.provider ?? "system"}: ${displayJson(step.event.text)}`,
        `  taint at start: ${taint(step.start.taint)}`,
      ];
      if (step.start.command) {
        const mark = step.start.command.accepted ? paint("32;1", "accepted") : paint("31;1", "refused");
        lines.push(`  owner command ${step.start.command.kind}: ${mark} — ${step.start.command.message}`);
      }
      return lines.join("\n");
    }
    case "tool_call": {
      const d = step.decision;
      const head = `  → ${paint("1", d.tool)} ${displayJson(step.event.params ?? {})}`;
      const verdict = paint(VERDICT_COLOUR[d.verdict], d.verdict.toUpperCase());
      const lines = [head, `    ${verdict} at ${taint(d.taint)} (rule: ${d.rule})`];
      for (const reasonLine of d.reason.split("\n")) lines.push(`    ${paint("2", reasonLine)}`);
      if (d.verdict === "allow") lines.push(`    ${paint("32", "the call runs")}`);
      return lines.join("\n");
    }
    case "tool_result":
      return `  ← ${step.event.tool} returned; taint now ${taint(step.taint)}`;
    case "response":
      return `  ⇠ response at ${taint(step.taint)}: ${displayJson(step.text)}`;
  }
}

export function registerDemoCommands(program: Command): void {
  program
    .command("demo")
    .description("replay the bundled example: a web page carrying an injection tries to make the agent run exec")
    .option("--no-color", "plain output")
    .action((opts: { color: boolean }) => {
      const paint = painter(opts.color && process.stdout.isTTY === true && process.env.NO_COLOR === undefined);
      const workspace = mkdtempSync(join(tmpdir(), "provenant-demo-"));
      try {
        process.stdout.write(
          paint("1", "provenant demo") +
            " — the owner asks for a page summary; the page carries an injection that asks for exec.\n",
        );
        replayFile(DEMO_TRACE, { workspace, onStep: (step) => process.stdout.write(`${describeStep(step, paint)}\n`) });
        process.stdout.write(`\nThe injected exec was stopped until the owner approved it with the one-time code.\n`);
      } catch (error) {
        exitWith("demo", error);
      } finally {
        rmSync(workspace, { recursive: true, force: true });
      }
    });
}
