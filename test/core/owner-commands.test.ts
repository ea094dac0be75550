import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { parseOwnerCommand } from "../../src/core/owner-commands.js";

describe("Approval Format and .reset-trust parsing", () => {
  it("parses the forms in the seed", () => {
    expect(parseOwnerCommand(".approve exec bf619df9")).toEqual({ kind: "approve", tool: "exec", code: "bf619df9", minutes: null, scope: null });
    expect(parseOwnerCommand(".approve all BF619DF9 30")).toEqual({ kind: "approve", tool: "all", code: "bf619df9", minutes: 30, scope: { kind: "minutes", minutes: 30 } });
  });

  it("the scope is the owner's explicit choice: call, turn, or minutes", () => {
    expect(parseOwnerCommand(".approve exec bf619df9 turn")).toMatchObject({ minutes: null, scope: { kind: "turn" } });
    expect(parseOwnerCommand(".approve exec bf619df9 call")).toMatchObject({ minutes: null, scope: { kind: "call" } });
    expect(parseOwnerCommand(".approve exec bf619df9 forever")).toMatchObject({ kind: "invalid", error: expect.stringContaining("call, turn, or minutes") });
    expect(parseOwnerCommand("  .reset-trust  ")).toEqual({ kind: "reset-trust", level: "trusted" });
    expect(parseOwnerCommand(".reset-trust shared")).toEqual({ kind: "reset-trust", level: "shared" });
  });

  it("gives precise errors for malformed commands", () => {
    expect(parseOwnerCommand(".approve exec")).toMatchObject({ kind: "invalid", command: "approve" });
    expect(parseOwnerCommand(".approve exec 1234567")).toMatchObject({ kind: "invalid", error: expect.stringContaining("8 hex") });
    expect(parseOwnerCommand(".approve exec bf619df9 0")).toMatchObject({ kind: "invalid", error: expect.stringContaining("minutes") });
    expect(parseOwnerCommand(".approve exec bf619df9 1e3")).toMatchObject({ kind: "invalid" });
    expect(parseOwnerCommand(".reset-trust owner")).toMatchObject({ kind: "invalid", error: expect.stringContaining("not a trust level") });
  });

  it("ignores ordinary text, including text that merely mentions a command", () => {
    expect(parseOwnerCommand("please .approve exec bf619df9")).toBeNull();
    expect(parseOwnerCommand(".approved")).toBeNull();
  });

  it("never throws on arbitrary input", () => {
    fc.assert(fc.property(fc.string(), (s) => void parseOwnerCommand(s)));
    fc.assert(fc.property(fc.string(), (s) => void parseOwnerCommand(`.approve ${s}`)));
  });
});
