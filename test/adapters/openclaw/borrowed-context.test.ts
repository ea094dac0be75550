import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { borrowedContext } from "../../../src/adapters/openclaw/borrowed-context.js";

describe("runs whose context is a conversation they do not name", () => {
  it("OpenClaw's skill review is one, by its run id; an owner's run is not", () => {
    expect(borrowedContext("skill-workshop-review:4f1c2a")).toEqual({ level: "untrusted", what: "OpenClaw's Skill Workshop review, whose context is a conversation it does not name" });
    expect(borrowedContext(undefined)).toBeNull();
    expect(borrowedContext("run-42")).toBeNull();
    expect(borrowedContext("x-skill-workshop-review:4f1c2a")).toBeNull();
  });

  it("any run id is read without throwing, and only the review's prefix counts", () => {
    fc.assert(
      fc.property(fc.string(), (runId) => {
        const found = borrowedContext(runId);
        expect(found === null).toBe(!runId.startsWith("skill-workshop-review:"));
      }),
    );
  });
});
