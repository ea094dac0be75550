import { describe, expect, it } from "vitest";
import { repeatedMemberName } from "../../../src/adapters/mcp/repeated-member-name.js";

const name = (text: string, ignoringCase = false) => repeatedMemberName(text, ignoringCase)?.name ?? null;

describe("repeatedMemberName", () => {
  it("names the first member an object repeats, however deep", () => {
    expect(repeatedMemberName('{"a":1,"a":2}')).toEqual({ name: "a", earlier: "a" });
    expect(name('{"p":{"x":1,"y":[{"k":1},{"k":2,"b":0,"b":1}]},"z":0,"z":1}')).toBe("b");
    expect(name('[{"a":1},{"b":[],"c":{},"b":2}]')).toBe("b");
    expect(name(' { "a" : 1 ,\n\t"a" : 2 } ')).toBe("a");
  });

  it("compares names as decoded, not as spelled", () => {
    expect(name('{"path":1,"\\u0070ath":2}')).toBe("path");
    expect(name('{"a\\"b":1,"a\\u0022b":2}')).toBe('a"b');
    expect(name('{"\\\\":1,"\\u005c":2}')).toBe("\\");
  });

  it("ignoring case, takes names a case-blind reader matches as one: ASCII case, Go's ſ and Kelvin sign, final sigma, canonical equivalents", () => {
    expect(repeatedMemberName('{"path":1,"PATH":2}', true)).toEqual({ name: "PATH", earlier: "path" });
    expect(repeatedMemberName('{"path":1,"PATH":2}')).toBeNull();
    expect(name('{"source":1,"\\u017fource":2}', true)).toBe("\u017fource");
    expect(name('{"kind":1,"\\u212aind":2}', true)).toBe("\u212aind");
    expect(name('{"σ":1,"ς":2}', true)).toBe("ς");
    // Swift's strings are equal when canonically equivalent; a full-width name is wider still.
    expect(name('{"caf\u00e9":1,"cafe\u0301":2}', true)).toBe("cafe\u0301");
    expect(name('{"path":1,"\uff50ath":2}', true)).toBe("\uff50ath");
    expect(name('{"caf\u00e9":1,"cafe\u0301":2}')).toBeNull();
    expect(name('{"Path":{"path":1},"name":2}', true)).toBeNull();
  });

  it("finds none where each object names a member once", () => {
    expect(name('{"a":{"a":{"a":1}},"b":[{"a":1},{"a":2}]}')).toBeNull();
    expect(name('{"a":"\\"a\\":1,","b":"a"}')).toBeNull();
    // A string value ending in an escaped backslash, then the name it looks like it quotes.
    expect(name('{"a":"x\\\\","b":"\\\\\\"a\\"","c":["a","a"]}')).toBeNull();
    expect(name("[1,2,[3]]")).toBeNull();
    expect(name('"a"')).toBeNull();
    expect(name("")).toBeNull();
  });

  it("after an array inside an object, reads the next member's name as a name", () => {
    expect(name('{"a":[1,"a"],"a":2}')).toBe("a");
    expect(name('{"a":[{"b":1}],"c":1,"a":2}')).toBe("a");
  });

  it("ends on text that is not JSON, without throwing", () => {
    expect(name('{"a":1,"a')).toBeNull();
    expect(name('{"a\\')).toBeNull();
    expect(name('}}]]{"a":1,"a":2')).toBe("a");
    // An escape JSON does not have: the name as spelled.
    expect(name('{"\\x":1,"\\x":2}')).toBe("\\x");
  });
});
