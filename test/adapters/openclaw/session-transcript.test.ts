import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { SessionTranscript } from "../../../src/adapters/openclaw/session-transcript.js";

const owner = (words: string) => ({ role: "user", content: `[Fri 2026-11-27 19:48 UTC] Conversation info: \u27e6openclaw:ctx\u27e7\n\`\`\`json\n{"sender":{"id":"111111","name":"Owner"}}\n\`\`\`\n\n${words}` });
const agent = (text: string) => ({ role: "assistant", content: [{ type: "text", text }] });

describe("which messages a session's transcript holds whole", () => {
  it("rule: the owner's words without the host's stamp, metadata and runtime context; the agent's replies as written", () => {
    const transcript = new SessionTranscript([owner("send it\n<<<BEGIN_OPENCLAW_INTERNAL_CONTEXT>>>\nConversation data: x"), agent("Sent."), { role: "user", content: "plain words" }]);
    expect(transcript.holds("send it")).toBe(true);
    expect(transcript.holds("Sent.")).toBe(true);
    expect(transcript.holds("plain words")).toBe(true);
    // The host's additions are not anyone's message.
    expect(transcript.holds("Conversation data: x")).toBe(false);
    expect(transcript.holds("[Fri 2026-11-27 19:48 UTC] Conversation info:")).toBe(false);
    // Tool results and custom entries are not messages of the chat.
    expect(new SessionTranscript([{ role: "toolResult", content: "Sent." }, { role: "custom", content: "Sent." }]).holds("Sent.")).toBe(false);
  });

  it("rule: formatting the chat adds or takes off does not matter; words, order and link targets do", () => {
    const transcript = new SessionTranscript([agent("The **report** is\n\nready: see `out/report.pdf`.\n```sh\nls -l\n```")]);
    expect(transcript.holds("The report is ready: see out/report.pdf. ls -l")).toBe(true);
    expect(transcript.holds("The <b>report</b> is ready: see <code>out/report.pdf</code>. <pre><code class=\"language-sh\">ls -l</code></pre>")).toBe(true);
    expect(transcript.holds("The \u200breport is ready: see out/report.pdf. ls -l")).toBe(true);
    expect(transcript.holds("The report is ready: see out/report.pdf. ls -l -a")).toBe(false);
    expect(transcript.holds("The report is ready: see out/ report.pdf. ls -l")).toBe(false);
    // A lone mark can change what a command does, and a link's address is not formatting.
    expect(new SessionTranscript([agent("run rm -rf build")]).holds("run rm -rf build*")).toBe(false);
    expect(new SessionTranscript([agent("[docs](https://a.example)")]).holds('<a href="https://b.example">docs</a>')).toBe(false);
    expect(new SessionTranscript([agent("a &lt; b")]).holds("a &amp;lt; b")).toBe(false);
    expect(new SessionTranscript([agent("a < b & c")]).holds("a &lt; b &amp; c")).toBe(true);
  });

  it("rule: a message the host cut to its head and tail matches only one that opens and closes so, and no part of a message matches", () => {
    const long = `${"a".repeat(50)} middle ${"z".repeat(50)}`;
    const transcript = new SessionTranscript([agent(long)]);
    expect(transcript.holds(`${"a".repeat(50)}…[omitted]…${"z".repeat(50)}`)).toBe(true);
    expect(transcript.holds(`${"a".repeat(50)} middle…[truncated]`)).toBe(true);
    expect(transcript.holds(`${"a".repeat(50)}…[omitted]…${"y".repeat(5)}`)).toBe(false);
    expect(transcript.holds(`${"b".repeat(5)}…[truncated]`)).toBe(false);
    // The parts must not overlap to make a message longer than the one held.
    expect(new SessionTranscript([agent("abc")]).holds("abc…[omitted]…bc")).toBe(false);
    expect(new SessionTranscript([agent("abc")]).holds("abc…[truncated]")).toBe(false);
    expect(transcript.holds("middle")).toBe(false);
    expect(transcript.holds("")).toBe(false);
  });

  it("rule: only text blocks of a message are its text, joined by lines; hostile blocks are none", () => {
    const transcript = new SessionTranscript([
      { role: "assistant", content: [{ type: "text", text: "one" }, { type: "image", text: "hidden" }, null, 5, { type: "text", text: 7 }, { type: "text", text: "two" }] },
      { role: "assistant", content: [{ type: "image", text: "alone" }] },
      { role: "assistant", content: [] },
      { role: "user", content: "\n<<<BEGIN_OPENCLAW_INTERNAL_CONTEXT>>>\nthe host's" },
    ]);
    expect(transcript.holds("one two")).toBe(true);
    expect(transcript.holds("onetwo")).toBe(false);
    expect(transcript.holds("one hidden two")).toBe(false);
    expect(transcript.holds("alone")).toBe(false);
    expect(transcript.holds("hidden")).toBe(false);
    expect(transcript.holds("<<<BEGIN_OPENCLAW_INTERNAL_CONTEXT>>> the host's")).toBe(false);
    // An empty message matches nothing, not even an empty quote.
    expect(new SessionTranscript([agent(""), owner("")]).holds("")).toBe(false);
    expect(new SessionTranscript([agent("  ")]).holds("…[truncated]")).toBe(false);
  });

  it("rule: each entity and each paired mark is formatting; one that does not pair is text", () => {
    const transcript = new SessionTranscript([agent(`a > b, "c" and 'd' & __e__`)]);
    expect(transcript.holds("a &gt; b, &quot;c&quot; and &#39;d&#39; &amp; e")).toBe(true);
    expect(transcript.holds("a  b, c and d  e")).toBe(false);
    expect(new SessionTranscript([agent("__x")]).holds("x")).toBe(false);
    expect(new SessionTranscript([agent("a__bc__d")]).holds("abcd")).toBe(true);
  });

  it("rule: a cut message's parts are checked against each message of the transcript, none standing in for another", () => {
    const transcript = new SessionTranscript([agent("abcdef"), agent("xyz")]);
    expect(transcript.holds("ab…[omitted]…ef")).toBe(true);
    expect(transcript.holds("ab…[omitted]…yz")).toBe(false);
    expect(transcript.holds("abc…[omitted]…def")).toBe(false);
    expect(transcript.holds("…[omitted]…ef")).toBe(true);
    expect(transcript.holds("abcd…[truncated]")).toBe(true);
    expect(transcript.holds("abcdX…[truncated]")).toBe(false);
    expect(transcript.holds("abcdefghijklmnop WRONG…[truncated]")).toBe(false);
  });

  it("property: hostile history never throws; a held message with anything added, or with a part taken off, is not held", () => {
    fc.assert(
      fc.property(fc.array(fc.anything(), { maxLength: 6 }), fc.string({ maxLength: 60 }), (history, shown) => {
        expect(typeof new SessionTranscript(history).holds(shown)).toBe("boolean");
      }),
      { numRuns: 300 },
    );
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: 80 }), fc.stringMatching(/^[A-Za-z0-9]{1,8}$/), (text, added) => {
        const transcript = new SessionTranscript([agent(`${text} ${added}`)]);
        expect(transcript.holds(`${text} ${added}`)).toBe(true);
        expect(transcript.holds(`${text} ${added}${added}`)).toBe(false);
        expect(transcript.holds(text)).toBe(false);
      }),
      { numRuns: 500 },
    );
  });
});
