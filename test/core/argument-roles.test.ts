import { describe, expect, it } from "vitest";
import { egressArguments, rolesFor, type ToolArgumentRoles } from "../../src/core/argument-roles.js";

const TABLE: ToolArgumentRoles = {
  send_email: { to: "content", "attachments[].type": "detail", body: "content", "": "amount" },
  fetch: { url: "egress", query: "egress", headers: "detail", limit: "amount" },
};

describe("rolesFor", () => {
  it("rule: array indices of any width are written [] when a path is looked up", () => {
    const roleOf = rolesFor(TABLE, "send_email");
    expect(roleOf("attachments[3].type")).toBe("detail");
    expect(roleOf("attachments[12].type")).toBe("detail");
  });

  it("rule: a nested path falls back to its top-level argument's role", () => {
    const roleOf = rolesFor(TABLE, "send_email");
    expect(roleOf("to.name")).toBe("content");
    expect(roleOf("to[1]")).toBe("content");
    expect(roleOf("to[0].address")).toBe("content");
  });

  it("rule: an argument is looked up by its whole name, never by a prefix of it", () => {
    // "tox" is not "to": a name the table does not list is a target.
    expect(rolesFor(TABLE, "send_email")("tox")).toBe("target");
    expect(rolesFor(TABLE, "send_email")("bodyguard")).toBe("target");
  });

  it("rule: a path under an empty top-level name takes that name's role", () => {
    expect(rolesFor(TABLE, "send_email")(".x")).toBe("amount");
  });

  it("rule: an egress argument of a side-effecting call is traced as a target", () => {
    expect(rolesFor(TABLE, "fetch")("url")).toBe("target");
    expect(rolesFor(TABLE, "unknown_tool")("anything")).toBe("target");
  });
});

describe("egressArguments", () => {
  it("rule: only the arguments configured `egress` leave the machine", () => {
    expect(egressArguments(TABLE, "fetch")).toEqual(["url", "query"]);
    expect(egressArguments(TABLE, "send_email")).toEqual([]);
  });

  it("rule: a tool the table does not name has no egress argument", () => {
    expect(egressArguments(TABLE, "unknown_tool")).toEqual([]);
    expect(egressArguments(TABLE, "constructor")).toEqual([]);
  });
});
