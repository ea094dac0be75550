import { describe, expect, it } from "vitest";
import { operationOf } from "../../src/core/argument-operations.js";

/**
 * The words that ask for each operation are a safety table: a word shared by two operations lets
 * the owner's request for one vouch for the other. Each list is pinned whole, so widening one is a
 * decision someone makes on purpose.
 */
const WORDS: Readonly<Record<string, readonly string[]>> = {
  send: ["send", "forward", "reply", "tell", "notify", "dm", "write", "post", "contact"],
  post: ["post", "publish", "upload", "write", "reply", "send"],
  share: ["share", "give access", "grant"],
  invite: ["invite"],
  add: ["add", "include", "invite", "append", "put"],
  append: ["append", "add", "include", "put", "write"],
  create: ["create", "schedule", "set up", "remind", "save"],
  update: ["update", "change", "modify", "edit", "adjust", "correct", "rename"],
  reschedule: ["reschedule", "move", "postpone", "shift", "change"],
  reserve: ["reserve", "reservation", "book"],
  schedule: ["schedule", "set up", "plan"],
  delete: ["delete", "remove", "erase", "trash"],
  remove: ["remove", "delete", "kick", "ban"],
  cancel: ["cancel", "call off", "delete", "remove"],
  pay: ["pay", "transfer", "refund", "wire", "send money"],
};

const IRREVERSIBLE = ["delete", "remove", "cancel", "erase", "destroy", "purge", "revoke", "kick", "ban", "wipe", "drop", "pay", "transfer", "withdraw", "refund"];

describe("operationOf: the words that ask for an operation", () => {
  it("rule: each verb a tool's name starts with is asked for by exactly its listed words", () => {
    for (const [verb, words] of Object.entries(WORDS)) {
      expect(operationOf({}, `${verb}_item`, "write")).toEqual({ name: verb, words, irreversible: IRREVERSIBLE.includes(verb) });
    }
  });

  it("rule: asking for one operation never asks for an unrelated one (delete is no way to say send)", () => {
    expect(operationOf({}, "send_email", "send").words).not.toContain("delete");
    expect(operationOf({}, "delete_file", "write").words).not.toContain("send");
    expect(operationOf({}, "pay_bill", "write").words).not.toContain("delete");
  });

  it("rule: a verb with no listed words is asked for by itself only", () => {
    expect(operationOf({}, "archive_mail", "write")).toEqual({ name: "archive", words: ["archive"], irreversible: false });
  });
});

describe("operationOf: which operations cannot be undone", () => {
  it("rule: deleting, removing people and moving money are irreversible, whatever the tool's class", () => {
    for (const verb of IRREVERSIBLE) expect(operationOf({}, `${verb}_thing`, "write").irreversible).toBe(true);
  });

  it("rule: sending, creating and changing are not", () => {
    for (const verb of ["send", "post", "share", "invite", "add", "append", "create", "update", "reschedule", "reserve", "schedule", "archive"]) {
      expect(operationOf({}, `${verb}_thing`, "send").irreversible).toBe(false);
    }
  });

  it("rule: a trade moves money whatever its verb: the words for paying ask for it, and it is irreversible", () => {
    expect(operationOf({}, "buy_stock", "trade")).toEqual({ name: "buy (moves money)", words: ["buy", ...WORDS.pay!], irreversible: true });
    expect(operationOf({}, "send_money", "trade")).toEqual({ name: "send (moves money)", words: [...WORDS.send!, ...WORDS.pay!], irreversible: true });
    // A trade named for paying is not said to move money twice.
    expect(operationOf({}, "pay_bill", "trade").name).toBe("pay");
  });
});

describe("operationOf: the owner's table", () => {
  it("rule: configured words replace the derived ones; irreversibility stays derived unless configured", () => {
    expect(operationOf({ delete_file: { words: ["purge"] } }, "delete_file", "write")).toEqual({ name: "delete", words: ["purge"], irreversible: true });
    expect(operationOf({ send_money: { irreversible: false } }, "send_money", "trade")).toEqual({
      name: "send (moves money)",
      words: [...WORDS.send!, ...WORDS.pay!],
      irreversible: false,
    });
  });

  it("rule: only the tool's own entry applies", () => {
    expect(operationOf({ delete_file: { words: ["purge"] } }, "delete_user", "write").words).toEqual(WORDS.delete);
    expect(operationOf({}, "toString", "write")).toEqual({ name: "to", words: ["to"], irreversible: false });
  });
});

describe("operationOf: the verb is the first word of the tool's name", () => {
  it("rule: snake, kebab, camel and Pascal case and digits are read the same way", () => {
    expect(operationOf({}, "deleteFile", "write").name).toBe("delete");
    expect(operationOf({}, "DeleteFile", "write").name).toBe("delete");
    expect(operationOf({}, "remove-user", "write").name).toBe("remove");
    expect(operationOf({}, "__send__email", "send").name).toBe("send");
    expect(operationOf({}, "s3Upload", "write").name).toBe("s3");
    expect(operationOf({}, "mcp.slack.post", "write").name).toBe("mcp");
  });

  it("rule: a name with no letter or digit is its own verb", () => {
    expect(operationOf({}, "__", "write")).toEqual({ name: "__", words: ["__"], irreversible: false });
    expect(operationOf({}, "", "write")).toEqual({ name: "", words: [""], irreversible: false });
  });
});
