import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { FrameDecoder, FrameError, MAX_FRAME_BYTES, encodeFrame } from "../../src/broker/frame.js";
import { LineSplitter } from "../../src/broker/line-splitter.js";
import { donePayload, errorPayload, outputFrame, parseClientMessage, parseRequest, parseResponse } from "../../src/broker/wire.js";

const frameOf = (len: number): Buffer => {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(len);
  return b;
};

describe("response frames", () => {
  it("writes the reference's golden payloads", () => {
    expect(donePayload(0, false)).toBe('{"type":"done"}');
    expect(donePayload(3, false)).toBe('{"type":"done","exit_code":3}');
    expect(donePayload(-1, false)).toBe('{"type":"done","exit_code":-1}');
    expect(donePayload(-1, true)).toBe('{"type":"done","exit_code":-1,"timeout":true}');
    expect(errorPayload("authentication failed")).toBe('{"type":"error","message":"authentication failed"}');
    expect(outputFrame("stdout", Buffer.from("out\n")).subarray(4).toString()).toBe('{"type":"stdout","data":"b3V0Cg=="}');
    const f = encodeFrame('{"type":"done"}');
    expect(f.readUInt32BE(0)).toBe(15);
  });

  it("rejects zero-length and oversized frames", () => {
    expect(() => new FrameDecoder().push(frameOf(0))).toThrow(FrameError);
    expect(() => new FrameDecoder().push(frameOf(MAX_FRAME_BYTES + 1))).toThrow(FrameError);
    expect(() => encodeFrame("")).toThrow(FrameError);
    expect(new FrameDecoder().push(Buffer.concat([frameOf(MAX_FRAME_BYTES), Buffer.from("{")]))).toEqual([]);
  });

  it("decodes any split of a frame sequence into the same payloads", () => {
    fc.assert(
      fc.property(
        fc.array(fc.uint8Array({ minLength: 0, maxLength: 3000 }), { minLength: 1, maxLength: 8 }),
        fc.array(fc.integer({ min: 1, max: 5000 }), { minLength: 1, maxLength: 20 }),
        (chunks, cuts) => {
          const frames = chunks.map((c, i) => outputFrame(i % 2 === 0 ? "stdout" : "stderr", Buffer.from(c)));
          const all = Buffer.concat(frames);
          const dec = new FrameDecoder();
          const got: Buffer[] = [];
          let off = 0;
          let i = 0;
          while (off < all.length) {
            const n = cuts[i++ % cuts.length] as number;
            got.push(...dec.push(all.subarray(off, off + n)));
            off += n;
          }
          expect(dec.buffered).toBe(0);
          expect(got.map((p) => parseResponse(p))).toEqual(
            chunks.map((c, j) => ({ type: j % 2 === 0 ? "stdout" : "stderr", data: Buffer.from(c) })),
          );
        },
      ),
    );
  });

  it("never throws anything but FrameError on hostile bytes", () => {
    fc.assert(
      fc.property(fc.array(fc.uint8Array({ maxLength: 64 }), { maxLength: 10 }), (chunks) => {
        const dec = new FrameDecoder();
        try {
          for (const c of chunks) for (const p of dec.push(Buffer.from(c))) parseResponse(p);
        } catch (error) {
          expect(error).toBeInstanceOf(FrameError);
        }
      }),
    );
  });
});

describe("NDJSON line splitting (the reference's read bugs)", () => {
  it("separates a request line and a stdin message that arrive in one read", () => {
    const s = new LineSplitter(1024);
    const ev = s.push(Buffer.from('{"version":3}\n{"type":"stdin","data":"aGk="}\n'));
    expect(ev.map((e) => (e.kind === "line" ? e.line.toString() : "overflow"))).toEqual(['{"version":3}', '{"type":"stdin","data":"aGk="}']);
  });

  it("takes a newline arriving in a separate read as the end of the line, not an empty message", () => {
    const s = new LineSplitter(1024);
    expect(s.push(Buffer.from('{"type":"stdin","data":"aGk="}'))).toEqual([]);
    const ev = s.push(Buffer.from("\n"));
    expect(ev).toHaveLength(1);
    expect(s.push(Buffer.from("\n\r\n  \n"))).toEqual([]);
  });

  it("reports an over-long line once and drops it, then carries on", () => {
    const s = new LineSplitter(10);
    const ev = s.push(Buffer.from("0123456789abc"));
    expect(ev).toEqual([{ kind: "overflow" }]);
    expect(s.push(Buffer.from("def\nok\n")).map((e) => (e.kind === "line" ? e.line.toString() : "overflow"))).toEqual(["ok"]);
  });

  it("gives the same lines however the stream is cut", () => {
    fc.assert(
      fc.property(fc.array(fc.string({ maxLength: 40 }).map((x) => x.replace(/\n/g, "")), { maxLength: 10 }), fc.array(fc.integer({ min: 1, max: 30 }), { minLength: 1 }), (lines, cuts) => {
        const text = Buffer.from(lines.map((l) => `${l}\n`).join(""));
        const s = new LineSplitter(1000);
        const got: string[] = [];
        let off = 0;
        let i = 0;
        while (off < text.length) {
          const n = cuts[i++ % cuts.length] as number;
          for (const e of s.push(text.subarray(off, off + n))) if (e.kind === "line") got.push(e.line.toString());
          off += n;
        }
        expect(got).toEqual(lines.filter((l) => l.trim() !== ""));
      }),
    );
  });
});

describe("request and message parsing", () => {
  const req = (o: unknown): ReturnType<typeof parseRequest> => parseRequest(Buffer.from(JSON.stringify(o)));
  it("classifies requests as the reference does", () => {
    expect(parseRequest(Buffer.from("{nope"))).toEqual({ kind: "refused", message: "invalid json" });
    expect(req([1])).toEqual({ kind: "refused", message: "invalid json" });
    expect(req({ version: "3", hmac: "x" })).toEqual({ kind: "refused", message: "invalid json" });
    expect(req({ version: 3, tool: "gh", args: [1], hmac: "x" })).toEqual({ kind: "refused", message: "invalid json" });
    expect(req({ version: 3, tool: "gh", env: { A: 1 }, hmac: "x" })).toEqual({ kind: "refused", message: "invalid json" });
    expect(req({ version: 3, tool: "gh" })).toEqual({ kind: "refused", message: "invalid request: use proxy protocol" });
    expect(req({ version: 3, admin: "list", hmac: "h" })).toMatchObject({ kind: "admin", admin: "list" });
    expect(req({ version: 3, tool: "gh", hmac: "h", args: null, env: null })).toMatchObject({ kind: "proxy", args: null, env: null });
  });

  it("keeps a __proto__ env key as a plain key", () => {
    const r = parseRequest(Buffer.from('{"version":3,"hmac":"h","env":{"__proto__":"x","A":"1"}}'));
    expect(r.kind).toBe("proxy");
    if (r.kind === "proxy") expect(Object.keys(r.env ?? {})).toEqual(["__proto__", "A"]);
  });

  it("parses client messages and refuses malformed stdin", () => {
    expect(parseClientMessage(Buffer.from('{"type":"stdin","data":"aGk="}'))).toEqual({ type: "stdin", data: Buffer.from("hi") });
    expect(parseClientMessage(Buffer.from('{"type":"stdin","eof":true}'))).toEqual({ type: "eof" });
    expect(parseClientMessage(Buffer.from('{"type":"signal","signal":"SIGINT"}'))).toEqual({ type: "signal", signal: "SIGINT" });
    expect(parseClientMessage(Buffer.from('{"type":"signal","signal":"SIGKILL"}'))).toMatchObject({ type: "ignored" });
    expect(parseClientMessage(Buffer.from('{"type":"cleanup","files":[]}'))).toMatchObject({ type: "ignored" });
    expect(parseClientMessage(Buffer.from('{"type":"stdin","data":"a\\nGk="}'))).toBeUndefined();
    expect(parseClientMessage(Buffer.from("[]"))).toBeUndefined();
  });

  it("never throws on arbitrary input", () => {
    fc.assert(
      fc.property(fc.oneof(fc.json(), fc.string(), fc.uint8Array().map((u) => Buffer.from(u).toString("latin1"))), (text) => {
        parseRequest(Buffer.from(text));
        parseClientMessage(Buffer.from(text));
        parseResponse(Buffer.from(text));
      }),
      { numRuns: 3000 },
    );
  });
});

describe("the wire's edges (what the mutation run found untested)", () => {
  it("frames cut at every pair of places, a header split as finely as one byte, decode to the same payloads", () => {
    const payloads = ["{}", '{"type":"stdout","data":"aGk="}', "[1]"].map((p) => Buffer.from(p));
    const all = Buffer.concat(payloads.map((p) => Buffer.concat([frameOf(p.length), p])));
    for (let i = 0; i <= all.length; i++) {
      for (let j = i; j <= all.length; j++) {
        const dec = new FrameDecoder();
        const got = [all.subarray(0, i), all.subarray(i, j), all.subarray(j)].flatMap((chunk) => dec.push(chunk));
        expect(got, `cut at ${i} and ${j}`).toEqual(payloads);
        expect(dec.buffered).toBe(0);
      }
    }
  });

  it("a frame short of its last bytes is not handed out; a header alone that claims too much is refused at once", () => {
    const payload = Buffer.from('{"type":"exit","code":0}');
    const whole = Buffer.concat([frameOf(payload.length), payload]);
    for (let short = 1; short <= 5; short++) {
      const dec = new FrameDecoder();
      expect(dec.push(whole.subarray(0, whole.length - short)), `${short} short`).toEqual([]);
      expect(dec.push(whole.subarray(whole.length - short))).toEqual([payload]);
    }
    expect(() => new FrameDecoder().push(Buffer.concat([frameOf(MAX_FRAME_BYTES + 1), Buffer.from("{")]))).toThrow(new FrameError(`frame length ${MAX_FRAME_BYTES + 1} out of range`));
  });

  it("a response of the largest size is framed; one byte more is refused", () => {
    expect(encodeFrame("x".repeat(MAX_FRAME_BYTES)).length).toBe(MAX_FRAME_BYTES + 4);
    expect(() => encodeFrame("x".repeat(MAX_FRAME_BYTES + 1))).toThrow(new FrameError(`frame length ${MAX_FRAME_BYTES + 1} out of range`));
  });

  it("a line of exactly the limit is taken; an over-long line cut across reads is reported once; a line of tabs and spaces is blank", () => {
    const s = new LineSplitter(4);
    expect(s.push(Buffer.from("abcd\n"))).toEqual([{ kind: "line", line: Buffer.from("abcd") }]);
    expect(s.push(Buffer.from("abc"))).toEqual([]);
    expect(s.partial).toBe(true);
    expect(s.push(Buffer.from("de"))).toEqual([{ kind: "overflow" }]);
    expect(s.partial).toBe(true);
    expect(s.push(Buffer.from("fgh"))).toEqual([]);
    expect(s.push(Buffer.from("ij\nok\n"))).toEqual([{ kind: "line", line: Buffer.from("ok") }]);
    expect(s.partial).toBe(false);
    expect(s.push(Buffer.from("\t \r\n"))).toEqual([]);
    // A new limit holds for the lines that follow (the request line and the messages after it have their own).
    s.setLimit(2);
    expect(s.push(Buffer.from("abc\nab\n"))).toEqual([{ kind: "overflow" }, { kind: "line", line: Buffer.from("ab") }]);
  });
});
