import { describe, expect, it } from "vitest";
import { replayTrace, verdicts } from "./helpers.js";

describe("every recipient of a message is checked (replay)", () => {
  it("broadcasts, lists, mixed fields, numbers, other providers and accounts lose the owner-DM exception", () => {
    expect(verdicts(replayTrace("message-every-recipient.jsonl").lines)).toEqual([
      "r0:allow@trusted",
      "r1:allow@untrusted",
      "r2:confirm@untrusted",
      "r3:confirm@untrusted",
      "r4:confirm@untrusted",
      "r5:confirm@untrusted",
      "r6:allow@untrusted",
      "r7:confirm@untrusted",
      "r8:confirm@untrusted",
      "r9:allow@untrusted",
      "g0:allow@trusted",
      "g1:confirm@untrusted",
      "g2:allow@untrusted",
    ]);
  });
});
