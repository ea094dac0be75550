import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { EventStreamParser, type StreamEvent } from "../../src/adapters/mcp/event-stream.js";
import { RemoteServerError, remoteHeaders, remoteUrl } from "../../src/adapters/mcp/remote-server.js";
import { chunked, fuzzParams, FUZZ_TIMEOUT_MS } from "./fuzz-settings.js";

/** The standard's parse of a whole stream, written plainly: what a chunked reading must equal. */
function referenceEvents(text: string): { type: string; data: string }[] {
  const lines = (text.startsWith("\uFEFF") ? text.slice(1) : text).split(/\r\n|\r|\n/);
  lines.pop(); // the last piece has no line end: an unfinished line is never read
  const out: { type: string; data: string }[] = [];
  let data: string[] = [];
  let type = "";
  for (const line of lines) {
    if (line === "") {
      if (data.length > 0) out.push({ type: type || "message", data: data.join("\n") });
      data = [];
      type = "";
      continue;
    }
    if (line.startsWith(":")) continue;
    const colon = line.indexOf(":");
    const field = colon === -1 ? line : line.slice(0, colon);
    const value = colon === -1 ? "" : line.slice(colon + 1).replace(/^ /, "");
    if (field === "data") data.push(value);
    if (field === "event") type = value;
  }
  return out;
}

const streamLine = fc.oneof(
  fc.constantFrom("", ":", ": note", "data", "data:", "data: x", "event: a", "event:", "id: 1", "retry: 10", "bogus: y"),
  fc.string({ maxLength: 12 }).map((v) => `data: ${v.replace(/[\r\n]/g, "")}`),
  fc.string({ maxLength: 12 }).map((v) => v.replace(/[\r\n]/g, "")),
);

describe("the event-stream reader under fuzzing", () => {
  it("yields the standard's events however the stream is cut and whatever line ends it uses", () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(streamLine, fc.constantFrom("\n", "\r", "\r\n")), { maxLength: 16 }), fc.boolean(), fc.array(fc.nat(), { maxLength: 10 }), (lines, bom, cuts) => {
        const text = (bom ? "\uFEFF" : "") + lines.map(([l, end]) => l + end).join("");
        const parser = new EventStreamParser(1 << 20);
        const got: StreamEvent[] = [];
        for (const chunk of chunked(Buffer.from(text, "utf8"), cuts)) got.push(...parser.push(chunk));
        got.push(...parser.end());
        expect(got.map((e) => (e.kind === "event" ? { type: e.type, data: e.data } : e))).toEqual(referenceEvents(text));
      }),
      fuzzParams("mcp-event-stream", 4),
    );
  }, FUZZ_TIMEOUT_MS);

  it("reads any bytes without throwing and keeps no event over its bound", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 400 }), fc.integer({ min: 1, max: 64 }), fc.array(fc.nat(), { maxLength: 8 }), (bytes, max, cuts) => {
        const parser = new EventStreamParser(max);
        const events = [...chunked(Buffer.from(bytes), cuts).flatMap((c) => parser.push(c)), ...parser.end()];
        for (const e of events) {
          if (e.kind === "event") expect(Buffer.byteLength(e.data) + Buffer.byteLength(e.type)).toBeLessThanOrEqual(max);
          else expect(e.bytes).toBeGreaterThan(max);
        }
      }),
      fuzzParams("mcp-event-stream-bytes", 4),
    );
  }, FUZZ_TIMEOUT_MS);
});

describe("a remote server's URL and headers under fuzzing", () => {
  it("any URL text is refused with a precise error or is https, or http to this machine, with no credentials", () => {
    fc.assert(
      fc.property(fc.oneof(fc.webUrl({ withQueryParameters: true, withFragments: true }), fc.string({ maxLength: 40 }), fc.constantFrom("http://127.0.0.1:1/x", "http://[::1]/", "http://localhost/")), (text) => {
        let url: URL;
        try {
          url = remoteUrl(text);
        } catch (error) {
          expect(error).toBeInstanceOf(RemoteServerError);
          return;
        }
        expect(url.username + url.password + url.hash).toBe("");
        if (url.protocol !== "https:") expect(["localhost", "[::1]"].includes(url.hostname) || /^127\./.test(url.hostname)).toBe(true);
      }),
      fuzzParams("mcp-remote-url", 4),
    );
  }, FUZZ_TIMEOUT_MS);

  it("any header flags and environment are refused without quoting a value, or give headers that cannot break a request", () => {
    const secret = "SECRETVALUE";
    fc.assert(
      fc.property(fc.array(fc.string({ maxLength: 30 }).map((s) => s.replace("V", secret)), { maxLength: 4 }), fc.option(fc.oneof(fc.json({ maxDepth: 2 }), fc.dictionary(fc.string({ maxLength: 10 }), fc.string({ maxLength: 20 })).map((d) => JSON.stringify(d))), { nil: undefined }), (flags, env) => {
        let headers: Record<string, string>;
        try {
          headers = remoteHeaders(flags, env);
        } catch (error) {
          expect(error).toBeInstanceOf(RemoteServerError);
          expect(String(error)).not.toContain(secret);
          return;
        }
        for (const [name, value] of Object.entries(headers)) {
          expect(name).toMatch(/^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/);
          expect(value).not.toMatch(/[\r\n\0]/);
          expect(() => new Headers({ [name]: value })).not.toThrow();
        }
      }),
      fuzzParams("mcp-remote-headers", 4),
    );
  }, FUZZ_TIMEOUT_MS);
});
