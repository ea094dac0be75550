import { describe, expect, it } from "vitest";
import { EventStreamParser, type StreamEvent } from "../../../src/adapters/mcp/event-stream.js";

function parse(chunks: readonly (string | Buffer)[], max = 1 << 20): StreamEvent[] {
  const parser = new EventStreamParser(max);
  return [...chunks.flatMap((c) => parser.push(typeof c === "string" ? Buffer.from(c, "utf8") : c)), ...parser.end()];
}
const data = (events: readonly StreamEvent[]) => events.map((e) => (e.kind === "event" ? e.data : `oversize ${e.bytes}`));

describe("the event-stream reader", () => {
  it("reads the standard's examples: joined data lines, comments, one leading space, a field with no colon", () => {
    expect(data(parse(["data: YHOO\ndata: +2\ndata: 10\n\n"]))).toEqual(["YHOO\n+2\n10"]);
    expect(data(parse([": test stream\n\ndata: first event\nid: 1\n\ndata:second event\nid\n\ndata:  third event\n\n"]))).toEqual(["first event", "second event", " third event"]);
    expect(data(parse(["data\n\ndata\ndata\n\ndata:\n"]))).toEqual(["", "\n"]);
  });

  it("names the event's type (message by default) and keeps the last id", () => {
    const events = parse(["event: ping\ndata: a\nid: 7\n\ndata: b\n\nid: a\0b\ndata: c\n\n"]);
    expect(events).toEqual([
      { kind: "event", type: "ping", data: "a", id: "7" },
      { kind: "event", type: "message", data: "b", id: "7" },
      // An id holding NUL is ignored.
      { kind: "event", type: "message", data: "c", id: "7" },
    ]);
  });

  it("ends lines at CRLF, LF and CR, also when CR and LF arrive in two chunks", () => {
    expect(data(parse(["data: a\r\n\r\ndata: b\r\rdata: c\n\n"]))).toEqual(["a", "b", "c"]);
    expect(data(parse(["data: a\r", "\n", "\r", "\ndata: b\r", "\r"]))).toEqual(["a", "b"]);
    // A CRLF is one line end, in one chunk or two: the lines around it are one event's.
    expect(data(parse(["data: a\r\ndata: b\r\n\r\n"]))).toEqual(["a\nb"]);
    expect(data(parse(["data: a\r", "\ndata: b\r", "\n\r\n"]))).toEqual(["a\nb"]);
    // An LF opening the stream, or a chunk after one that did not end in CR, is a line end of its own.
    expect(data(parse(["\ndata: a\n", "\n"]))).toEqual(["a"]);
    expect(data(parse(["data: a\n", "\ndata: b\n\n"]))).toEqual(["a", "b"]);
    expect(data(parse(["data: a", "\r", "data: b\n\n"]))).toEqual(["a\nb"]);
  });

  it("holds back the stream's first bytes only while they may still be a byte-order mark", () => {
    expect(data(parse([Buffer.from([0xef]), Buffer.from([0xbb, 0xbf]), "data: x\n\n"]))).toEqual(["x"]);
    // A lone byte that is no mark's start is read at once.
    const parser = new EventStreamParser(1 << 10);
    expect(parser.push(Buffer.from("d"))).toEqual([]);
    expect(parser.push(Buffer.from("ata: y\n\n"))).toEqual([{ kind: "event", type: "message", data: "y", id: null }]);
    // The whole mark in the first chunk goes, and the event after it is read in the same push.
    expect(new EventStreamParser(1 << 10).push(Buffer.from("\uFEFFdata: z\n\n", "utf8"))).toEqual([{ kind: "event", type: "message", data: "z", id: null }]);
  });

  it("drops a byte-order mark at the start only, also split across chunks, and a character split across chunks stays whole", () => {
    const bom = Buffer.from([0xef, 0xbb, 0xbf]);
    expect(data(parse([bom.subarray(0, 1), bom.subarray(1), "data: x\n\n"]))).toEqual(["x"]);
    // Later, it is part of the line: the field is then "\uFEFFdata", which no event has.
    expect(data(parse(["data: x\n\n", bom, "data: y\n\n"]))).toEqual(["x"]);
    const snowman = Buffer.from("data: ☃\n\n", "utf8");
    expect(data(parse([snowman.subarray(0, 7), snowman.subarray(7)]))).toEqual(["☃"]);
  });

  it("drops an event the stream ends before its blank line, and a line that only looks like a comment is a field", () => {
    expect(data(parse(["data: done\n\ndata: cut"]))).toEqual(["done"]);
    expect(data(parse(["data: cut\n"]))).toEqual([]);
    // Read after the end, nothing of the cut event comes back.
    const parser = new EventStreamParser(1 << 10);
    parser.push(Buffer.from("event: x\ndata: cut\n"));
    parser.end();
    expect(parser.push(Buffer.from("data: next\n\n"))).toEqual([{ kind: "event", type: "message", data: "next", id: null }]);
    expect(data(parse(["data: a:\n\n", "data:: b\n\n"]))).toEqual(["a:", ": b"]);
    expect(data(parse([":data: hidden\n\n"]))).toEqual([]);
    expect(parse(["id: 3\ndata: a\n\n"])[0]).toEqual({ kind: "event", type: "message", data: "a", id: "3" });
  });

  it("reports an event over the bound by its size, keeps nothing of it, and reads the next one", () => {
    const events = parse(["data: 0123456789\n", "data: 0123456789\n\ndata: ok\n\n"], 20);
    expect(data(events)).toEqual(["oversize 32", "ok"]);
    // Exactly at the bound it is kept; one byte over, it is not; the event after an oversize one starts clean.
    expect(data(parse(["data: 0123\n\n"], 10))).toEqual(["0123"]);
    expect(data(parse(["data: 01234\n\n"], 10))).toEqual(["oversize 11"]);
    expect(parse(["event: big\ndata: 0123456789\n\ndata: ok\n\n"], 12)).toEqual([{ kind: "oversize", bytes: 26 }, { kind: "event", type: "message", data: "ok", id: null }]);
    expect(data(parse(["data: a\ndata: 0123456789\ndata: b\n\ndata: c\n\n"], 16))).toEqual(["oversize 30", "c"]);
    // A single line with no end yet is counted, not kept, however long it grows.
    const parser = new EventStreamParser(8);
    for (let i = 0; i < 100; i++) expect(parser.push(Buffer.from("data: xxxxxxxx"))).toEqual([]);
    expect(parser.push(Buffer.from("\n\n"))).toEqual([{ kind: "oversize", bytes: 1400 }]);
  });
});
