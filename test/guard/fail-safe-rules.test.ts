import { describe, expect, it } from "vitest";
import type { ToolGate } from "../../src/core/gate.js";
import { describeFailure, failSafeDecision } from "../../src/guard-fail-safe.js";
import { Guard } from "../../src/guard.js";
import { tempWorkspace, OWNER } from "./helpers.js";

/** An error whose `Name: message` text is exactly `length` characters. */
const errorOfLength = (length: number): Error => new Error("m".repeat(length - "Error: ".length));

describe("describeFailure: how much of an error a reason names", () => {
  it("rule: an error text of up to 300 characters is named whole", () => {
    expect(describeFailure(new Error("disk full"))).toBe("Error: disk full");
    const exact = describeFailure(errorOfLength(300));
    expect(exact).toHaveLength(300);
    expect(exact.endsWith("m")).toBe(true);
  });

  it("rule: a longer error text is cut to its first 300 characters and an ellipsis", () => {
    expect(describeFailure(errorOfLength(301))).toBe(`Error: ${"m".repeat(293)}\u2026`);
    expect(describeFailure(errorOfLength(5_000))).toHaveLength(301);
  });
});

describe("failSafeDecision: the reason the owner and the model read", () => {
  it("rule: failMode closed blocks and says why, naming the tool and the error", () => {
    const d = failSafeDecision("closed", "web_fetch", new Error("state store exploded"));
    expect(d).toMatchObject({ verdict: "block", rule: "fail-closed", taint: "untrusted" });
    expect(d.reason).toBe("provenant could not decide this web_fetch call (Error: state store exploded); failMode is closed, so it is blocked.");
    // Given the call as the owner is shown it, the reason leads with it, as a held call's does.
    const named = failSafeDecision("closed", "exec", new Error("boom"), undefined, undefined, 'exec {"command":"ls"}');
    expect(named.reason).toBe('Call: exec {"command":"ls"}\nprovenant could not decide this exec call (Error: boom); failMode is closed, so it is blocked.');
  });

  it("rule: failMode open lets a read-only tool run and says so", () => {
    const d = failSafeDecision("open", "web_fetch", new Error("state store exploded"));
    expect(d).toMatchObject({ verdict: "allow", rule: "fail-open" });
    expect(d.reason).toBe("provenant could not decide this web_fetch call (Error: state store exploded); it only reads, so it runs (failMode open).");
  });

  it("rule: a side effect asked for after a failure shows its approval code, its expiry and the command that approves it", () => {
    const d = failSafeDecision("open", "exec", new Error("boom"), { code: "0123abcd", expiresInSeconds: 120 });
    expect(d).toMatchObject({ verdict: "confirm", rule: "fail-open", code: "0123abcd" });
    expect(d.reason).toBe(
      "provenant could not decide this exec call (Error: boom); it has side effects, so the owner must approve it (failMode open).\n" +
        "Approval code: 0123abcd (expires in 120s)\n" +
        "Approve:  .approve exec 0123abcd [minutes]",
    );
  });

  it("rule: through the guard, a failed decision's reason names the exact call and carries the code the guard issued", () => {
    const brokenGate: ToolGate = {
      name: "broken",
      check: () => {
        throw new Error("state store exploded");
      },
    };
    const guard = Guard.open({ workspaceDir: tempWorkspace(), gates: [brokenGate] });
    guard.beginTurn({ sessionId: "s", sender: OWNER, provider: "telegram", text: "hello" });
    const d = guard.beforeToolCall("s", { tool: "exec", params: { command: "ls" } });
    const code = d.code ?? "";
    expect(code).toMatch(/^[0-9a-f]{8}$/);
    expect(d.reason.split("\n")).toEqual([
      'Call: exec {"command":"ls"}',
      "provenant could not decide this exec call (Error: state store exploded); it has side effects, so the owner must approve it (failMode open).",
      expect.stringMatching(new RegExp(`^Approval code: ${code} \\(expires in \\d+s\\)$`)),
      `Approve:  .approve exec ${code} [minutes]`,
    ]);
    guard.close();
  });
});
