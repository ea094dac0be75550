import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { RequestScanner } from "../../src/broker/request-scanner.js";

/** Feeds `bytes` in the given pieces; returns the first result that is not partial, with every later byte in `rest`. */
function scan(bytes: Buffer, cuts: number[], max = 1 << 20): ReturnType<RequestScanner["push"]> {
  const scanner = new RequestScanner(max);
  const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
  let from = 0;
  for (const to of [...points, bytes.length]) {
    const r = scanner.push(bytes.subarray(from, to));
    if (r.kind === "complete") return { ...r, rest: Buffer.concat([r.rest, bytes.subarray(to)]) };
    if (r.kind !== "partial") return r;
    from = to;
  }
  return { kind: "partial" };
}

const jsonObject = fc.dictionary(fc.string(), fc.jsonValue(), { maxKeys: 6 });

describe("request scanner", () => {
  it("ends a request exactly at its closing brace however the bytes are cut, and hands back what follows", () => {
    fc.assert(
      fc.property(jsonObject, fc.constantFrom("", "\n", "  \r\n"), fc.string(), fc.array(fc.nat(), { maxLength: 8 }), fc.boolean(), (obj, lead, tail, cuts, pretty) => {
        const text = JSON.stringify(obj, null, pretty ? 2 : undefined);
        const bytes = Buffer.from(`${lead}${text}${tail}`);
        const r = scan(bytes, cuts);
        expect(r.kind).toBe("complete");
        if (r.kind !== "complete") return;
        expect(r.request.toString()).toBe(text);
        expect(r.rest.toString()).toBe(tail);
      }),
      { numRuns: 1500 },
    );
  });

  it("takes anything that does not start with { up to its newline, and stays partial without one", () => {
    expect(scan(Buffer.from('"x"\n{"type":"stdin"}'), [1])).toMatchObject({ kind: "complete", request: Buffer.from('"x"') });
    expect(scan(Buffer.from("  [1,2]"), [3]).kind).toBe("partial");
    expect(scan(Buffer.from("\n\n  \n"), []).kind).toBe("partial");
  });

  it("reports overflow instead of buffering past its limit, braces or not", () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1 }), fc.array(fc.nat(), { maxLength: 8 }), (s, cuts) => {
        const bytes = Buffer.from(`{"k":${JSON.stringify(s.repeat(64))}}`);
        const r = scan(bytes, cuts, bytes.length - 1);
        expect(r.kind).toBe("overflow");
      }),
    );
    expect(scan(Buffer.alloc(100, 0x61), [], 50).kind).toBe("overflow");
  });

  it("never throws and never completes early on hostile bytes (escaped quotes and braces inside strings)", () => {
    expect(scan(Buffer.from('{"a":"}\\"}"}tail'), [2, 5, 7])).toMatchObject({ kind: "complete", request: Buffer.from('{"a":"}\\"}"}'), rest: Buffer.from("tail") });
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), fc.array(fc.nat(), { maxLength: 8 }), (raw, cuts) => {
        scan(Buffer.from(raw), cuts, 100);
      }),
    );
  });

  it("a request complete at its brace needs no newline, after any blank space (tabs too); a line that is no object ends at its newline, the rest handed back whole", () => {
    expect(scan(Buffer.from('{"admin":true}'), [])).toMatchObject({ kind: "complete", request: Buffer.from('{"admin":true}'), rest: Buffer.alloc(0) });
    expect(scan(Buffer.from('\t \r\n{"a":1}more'), [])).toMatchObject({ kind: "complete", request: Buffer.from('{"a":1}'), rest: Buffer.from("more") });
    expect(scan(Buffer.from("hello\nrest"), [])).toMatchObject({ kind: "complete", request: Buffer.from("hello"), rest: Buffer.from("rest") });
  });

  it("a request of exactly the limit is taken, whole or cut, past blank space before it; one byte more is not", () => {
    const request = Buffer.from('{"k":"abcdefgh"}');
    for (const cuts of [[], [5], [3, 9]]) {
      expect(scan(Buffer.concat([Buffer.from("      "), request]), cuts.map((c) => c + 6), request.length)).toMatchObject({ kind: "complete", request });
      expect(scan(request, cuts, request.length - 1).kind).toBe("overflow");
    }
  });
});

