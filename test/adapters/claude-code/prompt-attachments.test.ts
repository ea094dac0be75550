import fc from "fast-check";
import { execFileSync } from "node:child_process";
import { appendFileSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { promptAttachments, TRANSCRIPT_READ } from "../../../src/adapters/claude-code/prompt-attachments.js";

const dir = mkdtempSync(join(tmpdir(), "provenant-transcript-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;
const transcript = (lines: readonly string[], tail = ""): string => {
  const file = join(dir, `t${++files}.jsonl`);
  writeFileSync(file, lines.map((l) => `${l}\n`).join("") + tail);
  return file;
};

const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";
const image = { type: "image", source: { type: "base64", media_type: "image/png", data: PNG } };
const pdf = { type: "document", source: { type: "base64", media_type: "application/pdf", data: "JVBERi0=" } };
/** Entries as Claude Code 2.1.332 writes them (the fields read here; it writes many more). */
const user = (promptId: string | undefined, content: unknown, extra: Record<string, unknown> = {}): string =>
  JSON.stringify({ parentUuid: null, ...(promptId === undefined ? {} : { promptId }), type: "user", message: { role: "user", content }, ...extra });
const text = (t: string) => [{ type: "text", text: t }];
const assistant = JSON.stringify({ type: "assistant", message: { role: "assistant", content: [{ type: "tool_use", id: "toolu_1", name: "Bash", input: { command: "ls" } }] } });
const attachment = (size: number) => JSON.stringify({ type: "attachment", attachment: { type: "skill_listing", content: "x".repeat(size) } });
const queue = JSON.stringify({ type: "queue-operation", operation: "enqueue" });

describe("what a prompt came with, from Claude Code's transcript", () => {
  it("an image sent with the prompt is found; a prompt of text only carries nothing; `next` is the file's end", () => {
    const lines = [queue, user("p1", [...text("what does this say?"), image]), attachment(500), user("p1", text("[Image: source: /tmp/claude-0/x/1.png]"), { isMeta: true }), assistant];
    const file = transcript(lines);
    const size = lines.join("\n").length + 1;
    expect(promptAttachments(file, "p1", null)).toEqual({ checked: true, kinds: ["image"], next: size, queued: 0, hookOutputs: [], hookPrompt: false });
    expect(promptAttachments(transcript([queue, user("p2", "fix the tests"), assistant]), "p2", null)).toEqual({ checked: true, kinds: [], next: expect.any(Number), queued: 0, hookOutputs: [], hookPrompt: false });
    expect(promptAttachments(transcript([user("p3", [...text("file this"), pdf, image])]), "p3", null)).toMatchObject({ kinds: ["document", "image"] });
  });

  it("an earlier prompt's image is not this prompt's; an entry queued into the turn under another prompt id is", () => {
    const earlier = [user("p0", [...text("look"), image]), assistant, user("p0", [{ type: "tool_result", tool_use_id: "toolu_1", content: "ok" }])];
    expect(promptAttachments(transcript([...earlier, user("p1", text("now run the tests")), assistant]), "p1", null)).toMatchObject({ checked: true, kinds: [] });
    expect(promptAttachments(transcript([...earlier, user("p1", text("run")), assistant, user("q9", [pdf])]), "p1", null)).toMatchObject({ checked: true, kinds: ["document"] });
  });

  it("a message sent while the turn ran, queued into it as an attachment, is the turn's: its image is found, back and on", () => {
    const queued = (prompt: unknown) => JSON.stringify({ type: "attachment", attachment: { type: "queued_command", prompt } });
    const head = [user("p1", text("run the tests")), assistant];
    expect(promptAttachments(transcript([...head, queued([...text("also this"), image])]), "p1", null)).toMatchObject({ checked: true, kinds: ["image"] });
    const file = transcript(head);
    const first = promptAttachments(file, "p1", null);
    appendFileSync(file, `${queued("text only")}\n${queued([...text("and this")])}\n${JSON.stringify({ type: "attachment", attachment: { type: "file", content: [image] } })}\n`);
    expect(promptAttachments(file, "p1", first.checked ? first.next : null)).toMatchObject({ checked: true, kinds: [] });
    appendFileSync(file, `${queued([pdf])}\n`);
    expect(promptAttachments(file, "p1", first.checked ? first.next : null)).toMatchObject({ checked: true, kinds: ["document"] });
    // A queued message files itself under no prompt: reading back, the turn ends at the user entry
    // of another prompt, so one queued at the end of the turn before counts (it is in the
    // conversation all the same).
    expect(promptAttachments(transcript([user("p0", [image]), queued([pdf]), user("p1", text("go"))]), "p1", null)).toMatchObject({ checked: true, kinds: ["document"] });
  });

  it("an image a tool returned is the tool's result, judged where it is reported, not here", () => {
    const result = user("p1", [{ type: "tool_result", tool_use_id: "toolu_1", content: [image] }]);
    expect(promptAttachments(transcript([user("p1", text("read shot.png")), assistant, result]), "p1", null)).toMatchObject({ kinds: [] });
  });

  it("a block of no known kind counts as carried; a line that is not JSON, or not a user entry, is passed over", () => {
    expect(promptAttachments(transcript([user("p1", [{ type: "container_upload" }, { nope: 1 }])]), "p1", null)).toMatchObject({ kinds: ["container_upload", "a block of no known kind"] });
    expect(promptAttachments(transcript(['{"type":"user", broken', '"user"', user("p1", text("hi")), "[]"]), "p1", null)).toMatchObject({ checked: true, kinds: [] });
    // Another entry's blocks are not the prompt's, whatever its text says; a user entry of no message, or of a block that is null, is read as what it is.
    const said = JSON.stringify({ type: "attachment", promptId: "p1", message: { role: "user", content: [{ type: "image" }, { type: "tool_use", id: "t", name: "Bash", input: {} }] } });
    expect(promptAttachments(transcript([user("p1", text("hi")), said]), "p1", null)).toMatchObject({ checked: true, kinds: [] });
    const system = JSON.stringify({ type: "system", message: { role: "user", content: [{ type: "image" }] } });
    const emptyAttachment = JSON.stringify({ type: "attachment", attachment: null, note: "queued_command" });
    expect(promptAttachments(transcript([user("p1", text("hi")), system, emptyAttachment]), "p1", null)).toMatchObject({ checked: true, kinds: [] });
    const bare = JSON.stringify({ promptId: "p1", type: "user", message: null });
    const unnamed = JSON.stringify({ type: "user", message: "hi" });
    expect(promptAttachments(transcript([bare, unnamed]), "p1", null)).toMatchObject({ checked: true, kinds: [] });
    expect(promptAttachments(transcript([user("p1", [null])]), "p1", null)).toMatchObject({ checked: true, kinds: ["a block of no known kind"] });
  });

  it("the line being written is left for the next check, which reads on from `next`", () => {
    const head = [user("p1", text("go")), assistant];
    const partial = user("q2", [image]);
    const file = transcript(head, partial.slice(0, 20));
    const first = promptAttachments(file, "p1", null);
    expect(first).toEqual({ checked: true, kinds: [], next: head.join("\n").length + 1, queued: 0, hookOutputs: [], hookPrompt: false });
    appendFileSync(file, `${partial.slice(20)}\n`);
    const second = promptAttachments(file, "p1", first.checked ? first.next : null);
    expect(second).toEqual({ checked: true, kinds: ["image"], next: statSync(file).size, queued: 0, hookOutputs: [], hookPrompt: false });
    // Read on from there, the next line being written is left again.
    appendFileSync(file, user("q3", [pdf]).slice(0, 30));
    expect(promptAttachments(file, "p1", second.checked ? second.next : null)).toEqual({ checked: true, kinds: [], next: second.checked ? second.next : -1, queued: 0, hookOutputs: [], hookPrompt: false });
    // A transcript shorter than `next` (rewritten since) is read back from its end again.
    expect(promptAttachments(transcript(head), "p1", 10_000)).toMatchObject({ checked: true, kinds: [] });
  });

  it("no transcript, no entry of the prompt, a turn past the read limit: not checked, and why", () => {
    expect(promptAttachments(join(dir, "absent.jsonl"), "p1", null)).toEqual({ checked: false, why: "Claude Code has written no transcript of the session (it keeps none, or not yet)", noTranscript: true });
    expect(promptAttachments(dir, "p1", null)).toEqual({ checked: false, noTranscript: false, why: "its transcript is not a regular file" });
    // A FIFO where the transcript was: answered at once, not waited on.
    const fifo = join(dir, "fifo.jsonl");
    execFileSync("mkfifo", [fifo]);
    expect(promptAttachments(fifo, "p1", null)).toEqual({ checked: false, noTranscript: false, why: "its transcript is not a regular file" });
    // A path that cannot be opened for another reason than its absence (a file in its way).
    const inTheWay = transcript([]);
    expect(promptAttachments(join(inTheWay, "t.jsonl"), "p1", null)).toEqual({ checked: false, noTranscript: false, why: expect.stringMatching(/^its transcript could not be read \(ENOTDIR/) });
    expect(promptAttachments(transcript([user("p0", text("hi")), assistant]), "p1", null)).toEqual({ checked: false, why: "its transcript holds no entry of the prompt", noTranscript: false });
    expect(promptAttachments(transcript([]), "p1", null)).toMatchObject({ checked: false });
    const limits = { chunk: 64, maxRead: 1024 };
    const long = transcript([user("p1", [image]), attachment(2000), assistant]);
    expect(promptAttachments(long, "p1", null, limits)).toEqual({ checked: false, why: "the turn's transcript is longer than the 1024 bytes looked through", noTranscript: false });
    // Forward too: more than the limit appended since the last check.
    expect(promptAttachments(long, "p1", 0, limits)).toMatchObject({ checked: false });
    // The same transcript within the limit is looked through.
    expect(promptAttachments(long, "p1", null, { chunk: 64, maxRead: 1 << 20 })).toMatchObject({ checked: true, kinds: ["image"] });
    // The limit counts what is read, not where in the file: a short tail far into a long file is read.
    const size = statSync(long).size;
    expect(promptAttachments(long, "p1", size - 300, limits)).toEqual({ checked: true, kinds: [], next: size, queued: 0, hookOutputs: [], hookPrompt: false });
    expect(promptAttachments(long, "p1", size - 1024, limits)).toMatchObject({ checked: true });
    const mid = transcript([user("p1", [image]), attachment(550)]);
    expect(statSync(mid).size).toBeGreaterThan(512);
    expect(promptAttachments(mid, "p1", null, limits)).toMatchObject({ checked: true, kinds: ["image"] });
    expect(TRANSCRIPT_READ).toEqual({ chunk: 1 << 20, maxRead: 64 << 20 });
  });

  it("counts the messages queued into the turn after the prompt's own entry, back and on; not those of an earlier turn", () => {
    const queued = JSON.stringify({ type: "attachment", attachment: { type: "queued_command", prompt: text("and this") } });
    const result = user("p1", [{ type: "tool_result", tool_use_id: "toolu_1", content: "ok" }]);
    expect(promptAttachments(transcript([user("p1", text("go")), assistant, queued, result, queued]), "p1", null)).toMatchObject({ checked: true, queued: 2 });
    expect(promptAttachments(transcript([user("p0", text("hi")), queued, user("p1", text("go")), queued]), "p1", null)).toMatchObject({ checked: true, queued: 1 });
    const lines = [user("p1", text("go")), assistant];
    const file = transcript(lines);
    const first = promptAttachments(file, "p1", null);
    expect(first).toMatchObject({ checked: true, queued: 0, hookOutputs: [], hookPrompt: false });
    appendFileSync(file, `${queued}\n${result}\n${queued}\n`);
    expect(promptAttachments(file, "p1", first.checked ? first.next : null)).toMatchObject({ checked: true, queued: 2 });
  });

  it("another hook's output is the turn's: a SessionStart hook's before the session's first prompt, a UserPromptSubmit hook's after it; not an earlier turn's", () => {
    const hook = (hookEvent: string, content: unknown[]) => JSON.stringify({ type: "attachment", attachment: { type: "hook_additional_context", content, hookName: hookEvent, toolUseID: hookEvent, hookEvent } });
    const printed = JSON.stringify({ type: "attachment", attachment: { type: "hook_success", content: "recalled: run the installer", hookEvent: "SessionStart", hookName: "SessionStart:startup" } });
    const recall = 'Recalled: CALL Bash {"command":"touch x"}';
    const first = transcript([queue, printed, hook("SessionStart", [recall]), user("p1", "what's new?"), attachment(10), assistant]);
    expect(promptAttachments(first, "p1", null)).toMatchObject({ checked: true, kinds: [], hookOutputs: ["a SessionStart hook's added context", "a SessionStart hook's output"] });
    const during = transcript([user("p1", "what's new?"), hook("UserPromptSubmit", [recall]), assistant]);
    expect(promptAttachments(during, "p1", null)).toMatchObject({ checked: true, hookOutputs: ["a UserPromptSubmit hook's added context"] });
    // Read on from `next`: a PostToolUse hook's context written after the first look.
    const file = transcript([user("p1", "go"), assistant]);
    const looked = promptAttachments(file, "p1", null);
    appendFileSync(file, `${user("p1", [{ type: "tool_result", tool_use_id: "toolu_1", content: "ok" }])}\n${hook("PostToolUse", [recall])}\n`);
    expect(promptAttachments(file, "p1", looked.checked ? looked.next : null)).toMatchObject({ checked: true, hookOutputs: ["a PostToolUse hook's added context"] });
    // An earlier turn's, before that turn's last entry, was that turn's to find.
    const later = transcript([hook("SessionStart", [recall]), user("p0", "hi"), assistant, hook("PostToolUse", [recall]), user("p0", [{ type: "tool_result", tool_use_id: "toolu_1", content: "ok" }]), user("p1", "go")]);
    expect(promptAttachments(later, "p1", null)).toMatchObject({ checked: true, hookOutputs: [], hookPrompt: false });
    // A resumed session's SessionStart hooks write after the earlier turns' entries.
    const resumed = transcript([user("p0", "hi"), assistant, hook("SessionStart", [recall]), user("p1", "go on")]);
    expect(promptAttachments(resumed, "p1", null)).toMatchObject({ checked: true, hookOutputs: ["a SessionStart hook's added context"] });
  });

  it("a final line as long as the read limit, with no newline, leaves nothing to read: not checked", () => {
    const limits = { chunk: 16, maxRead: 256 };
    expect(promptAttachments(transcript([user("p1", text("hi"))], "x".repeat(400)), "p1", null, limits)).toMatchObject({ checked: false });
  });

  it("leaves no file open", () => {
    const file = transcript([user("p1", [image])]);
    const open = () => readdirSync("/proc/self/fd").length;
    const before = open();
    for (let i = 0; i < 50; i++) {
      promptAttachments(file, "p1", null);
      promptAttachments(file, "p1", 0);
      promptAttachments(dir, "p1", null);
    }
    expect(open()).toBe(before);
  });

  it("fuzz: read back in chunks of any size, the answer is the one a plain reading of the lines gives", () => {
    const ids = ["p1", "p2", "p3"];
    const entry = fc.oneof(
      fc.record({ id: fc.option(fc.constantFrom(...ids), { nil: undefined }), blocks: fc.array(fc.constantFrom("text", "image", "document", "tool_result"), { maxLength: 3 }), pad: fc.nat(90) }).map(({ id, blocks, pad }) => ({
        line: user(id, blocks.map((t) => (t === "text" ? { type: "text", text: "y".repeat(pad) } : { type: t }))),
        user: { id, carried: blocks.filter((t) => t === "image" || t === "document") },
      })),
      fc.nat(150).map((n) => ({ line: attachment(n), user: null })),
      fc.boolean().map((withImage) => ({
        line: JSON.stringify({ type: "attachment", attachment: { type: "queued_command", prompt: withImage ? [{ type: "image" }] : [{ type: "text", text: "and" }] } }),
        user: { id: undefined, carried: withImage ? ["image"] : [], queued: true },
      })),
      fc.constantFrom("SessionStart", "UserPromptSubmit").map((hookEvent) => ({
        line: JSON.stringify({ type: "attachment", attachment: { type: "hook_additional_context", content: ["recalled"], hookEvent } }),
        user: { id: undefined, carried: [], hook: `a ${hookEvent} hook's added context` },
      })),
      fc.constant({ line: "", user: null }),
    );
    fc.assert(
      fc.property(fc.array(entry, { maxLength: 14 }), fc.constantFrom(...ids), fc.integer({ min: 1, max: 300 }), fc.string({ maxLength: 30 }), (entries, id, chunk, tail) => {
        const file = transcript(
          entries.map((e) => e.line),
          tail.replace(/\n/g, ""),
        );
        const got = promptAttachments(file, id, null, { chunk, maxRead: 1 << 20 });
        // The plain reading: back from the last line, up to the user entry of another prompt that precedes the prompt's own.
        // The queued messages counted are those after the earliest entry of the prompt so reached.
        const kinds = new Set<string>();
        const hooks = new Set<string>();
        let seen = false;
        let queued = 0;
        let queuedSince = 0;
        for (const e of [...entries].reverse()) {
          if (e.user === null) continue;
          if (e.user.id === id) {
            seen = true;
            queued += queuedSince;
            queuedSince = 0;
          } else if (seen && e.user.id !== undefined) break;
          for (const k of e.user.carried) kinds.add(k);
          if ("hook" in e.user) hooks.add(e.user.hook);
          if ("queued" in e.user) queuedSince++;
        }
        const size = entries.map((e) => `${e.line}\n`).join("").length;
        if (!seen) expect(got).toMatchObject({ checked: false });
        else expect(got).toEqual({ checked: true, kinds: [...kinds], next: size, queued, hookOutputs: [...hooks], hookPrompt: false });
      }),
      { numRuns: 300 },
    );
  });
});
