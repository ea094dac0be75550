import { describe, expect, it } from "vitest";
import { repeatedMemberName } from "../../../src/adapters/mcp/repeated-member-name.js";

describe("repeatedMemberName", () => {
  it("names the first member an object repeats, however deep", () => {
    expect(repeatedMemberName('{"a":1,"a":2}')).toBe("a");
    expect(repeatedMemberName('{"p":{"x":1,"y":[{"k":1},{"k":2,"b":0,"b":1}]},"z":0,"z":1}')).toBe("b");
    expect(repeatedMemberName('[{"a":1},{"b":[],"c":{},"b":2}]')).toBe("b");
    expect(repeatedMemberName(' { "a" : 1 ,\n\t"a" : 2 } ')).toBe("a");
  });

  it("compares names as decoded, not as spelled", () => {
    expect(repeatedMemberName('{"path":1,"\\u0070ath":2}')).toBe("path");
    expect(repeatedMemberName('{"a\\"b":1,"a\\u0022b":2}')).toBe('a"b');
    expect(repeatedMemberName('{"\\\\":1,"\\u005c":2}')).toBe("\\");
  });

  it("finds none where each object names a member once", () => {
    expect(repeatedMemberName('{"a":{"a":{"a":1}},"b":[{"a":1},{"a":2}]}')).toBeNull();
    expect(repeatedMemberName('{"a":"\\"a\\":1,","b":"a"}')).toBeNull();
    // A string value ending in an escaped backslash, then the name it looks like it quotes.
    expect(repeatedMemberName('{"a":"x\\\\","b":"\\\\\\"a\\"","c":["a","a"]}')).toBeNull();
    expect(repeatedMemberName("[1,2,[3]]")).toBeNull();
    expect(repeatedMemberName('"a"')).toBeNull();
    expect(repeatedMemberName("")).toBeNull();
  });

  it("after an array inside an object, reads the next member's name as a name", () => {
    expect(repeatedMemberName('{"a":[1,"a"],"a":2}')).toBe("a");
    expect(repeatedMemberName('{"a":[{"b":1}],"c":1,"a":2}')).toBe("a");
  });

  it("ends on text that is not JSON, without throwing", () => {
    expect(repeatedMemberName('{"a":1,"a')).toBeNull();
    expect(repeatedMemberName('{"a\\')).toBeNull();
    expect(repeatedMemberName('}}]]{"a":1,"a":2')).toBe("a");
    // An escape JSON does not have: the name as spelled.
    expect(repeatedMemberName('{"\\x":1,"\\x":2}')).toBe("\\x");
  });
});
