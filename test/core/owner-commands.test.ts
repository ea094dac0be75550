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

describe("owner commands: the exact forms accepted", () => {
  const APPROVE_USAGE = "usage: .approve <tool|all> <8-hex-code> [call|turn|minutes]";
  const RESET_USAGE = "usage: .reset-trust [trusted|shared|external|untrusted]";

  it("any run of whitespace separates words", () => {
    expect(parseOwnerCommand("  .approve \t exec   ABCD1234  \n 5 ")).toEqual({ kind: "approve", tool: "exec", code: "abcd1234", minutes: 5, scope: { kind: "minutes", minutes: 5 } });
    expect(parseOwnerCommand(".reset-trust   shared")).toEqual({ kind: "reset-trust", level: "shared" });
  });

  it("a missing part or a word too many is the usage, exactly", () => {
    for (const text of [".approve", ".approve exec", ".approve exec abcd1234 5 extra"]) {
      expect(parseOwnerCommand(text), text).toEqual({ kind: "invalid", command: "approve", error: APPROVE_USAGE });
    }
    expect(parseOwnerCommand(".reset-trust trusted extra")).toEqual({ kind: "invalid", command: "reset-trust", error: RESET_USAGE });
    expect(parseOwnerCommand(".reset-trust owner")).toEqual({ kind: "invalid", command: "reset-trust", error: `"owner" is not a trust level; ${RESET_USAGE}` });
  });

  it("the code is exactly 8 hex characters, nothing before or after", () => {
    for (const code of ["zabcd1234", "abcd1234z", "abcd123", "abcd12345", "abcd123g"]) {
      expect(parseOwnerCommand(`.approve exec ${code}`), code).toEqual({ kind: "invalid", command: "approve", error: `the code must be 8 hex characters; ${APPROVE_USAGE}` });
    }
  });

  it("minutes run from 1 to 1440 inclusive", () => {
    const outOfRange = { kind: "invalid", command: "approve", error: `the last word must be call, turn, or minutes as a whole number from 1 to 1440; ${APPROVE_USAGE}` };
    expect(parseOwnerCommand(".approve exec abcd1234 1")).toMatchObject({ kind: "approve", minutes: 1 });
    expect(parseOwnerCommand(".approve exec abcd1234 1440")).toMatchObject({ kind: "approve", minutes: 1440 });
    for (const minutes of ["0", "1441", "99999", "-5", "1.5", "5m"]) expect(parseOwnerCommand(`.approve exec abcd1234 ${minutes}`), minutes).toEqual(outOfRange);
  });
});
