import { describe, expect, it } from "vitest";
import { decideByArguments } from "../../src/core/argument-decision.js";
import type { ArgumentTrace } from "../../src/core/value-provenance.js";

/** A traced argument as value provenance hands it to the decision: only what the decision reads matters here. */
function trace(path: string, determined: boolean): ArgumentTrace {
  return {
    path,
    role: "target",
    value: `${path}-value`,
    sources: [],
    together: [],
    leastTrusted: determined ? "trusted" : "unmatched",
    trustedBy: null,
    weak: false,
    carried: [],
    determined,
    finding: determined ? "from owner message m1 (trusted)" : "occurs in no source",
  };
}

describe("decideByArguments: the approval prompt's first line", () => {
  it("rule: a call with no argument does not run unasked, and says there was nothing to trace", () => {
    const d = decideByArguments([]);
    expect(d.runsUnasked).toBe(false);
    expect(d.reason).toBe("no arguments to trace");
  });

  it("rule: a call whose every argument is determined runs, and the prompt says why", () => {
    const d = decideByArguments([trace("to", true)]);
    expect(d.runsUnasked).toBe(true);
    expect(d.reason).toBe(
      'every target and amount is determined by trusted data and no content carries untrusted text\nok to (target) = "to-value": from owner message m1 (trusted)',
    );
  });

  it("rule: one undetermined argument is counted in the singular", () => {
    const d = decideByArguments([trace("to", true), trace("amount", false)]);
    expect(d.runsUnasked).toBe(false);
    expect(d.reason.split("\n")[0]).toBe("1 argument depends on untrusted data");
    expect(d.reason.split("\n").slice(1)).toEqual(['ok to (target) = "to-value": from owner message m1 (trusted)', 'ASK amount (target) = "amount-value": occurs in no source']);
  });

  it("rule: several undetermined arguments are counted in the plural", () => {
    const d = decideByArguments([trace("to", false), trace("cc", false)]);
    expect(d.reason.split("\n")[0]).toBe("2 arguments depend on untrusted data");
    expect(d.undetermined.map((t) => t.path)).toEqual(["to", "cc"]);
  });
});
