import type { ForeignText } from "./runtime-context.js";
import { EXTERNAL_CONTENT_MARKER } from "./turn-origin.js";

/** The sender's own words in a turn's message, and what OpenClaw wrote into it beside them. */
export interface InlinedContent {
  /** The message with what OpenClaw inlined taken out: what the sender wrote. */
  readonly ownWords: string;
  /** What was taken out, for the turn's taint (each kind once). */
  readonly found: readonly ForeignText[];
}

const END_MARKER = "<<<END_EXTERNAL_UNTRUSTED_CONTENT";
/** OpenClaw's note for each attachment the model is shown (`[media attached 1/2: <path> (<type>) "<name>"]`). */
const MEDIA_NOTE = /\[media attached(?: \d+\/\d+)?: [^\]\n]*\]/g;
/** The element OpenClaw puts an attached file's text in (`<file name="…" mime="…">…</file>`). */
const FILE_TAGS = /<file(?: [a-z]+="[^"\n]*")*>|<\/file>/g;
/** The header of a section describing an image or a video the sender attached (`[Image]`, `[Video 2/3]`). */
const DESCRIBED_MEDIA = /^\[(?:Image|Video)(?: \d+\/\d+)?\]$/m;
/**
 * OpenClaw's description of a sticker for a model that cannot see it, before what the message
 * otherwise holds (the sticker's emoji): `[Sticker 👍 from "<its pack's name>"] <description>`.
 */
const STICKER = /^\[Sticker(?: [^\]\n]*)?\] /m;
/**
 * OpenClaw's line before each message of a burst the sender forwarded together, which it joins
 * into one message (`[Forwarded from <author> at <time>]`), saying so nowhere else.
 */
const FORWARDED_PART = /^\[Forwarded from /m;
const CAPTION = "User text:\n";
const DESCRIPTION = "\nDescription:\n";

/**
 * OpenClaw 2026.9.6 writes into the message of a turn, beside what the sender typed, the text it
 * extracted from an attached file (inside `<<<EXTERNAL_UNTRUSTED_CONTENT id="…">>>` …
 * `<<<END_EXTERNAL_UNTRUSTED_CONTENT id="…">>>`, in a `<file>` element), a note for each
 * attachment whose content the model is shown (an image, a document; a voice note it transcribed
 * gets none: the transcript is the message), and, when a media model is configured, its
 * descriptions of images and videos (`[Image]` … `Description:` sections) and, for a model that
 * cannot see images, of a sticker (`[Sticker …]`, with the name its pack's maker gave it; the
 * description runs over lines, and a sticker carries no words of the sender's). Someone made that
 * content, not the owner who sent it on: an invoice, a screenshot of a mail. It taints the turn
 * `untrusted`, and its words are not the owner's, so they vouch for no call. A wrapped block runs
 * to the end marker with its own id (the id is random, so text inside cannot close it early), or
 * to the end of the message.
 *
 * Telegram delivers several messages forwarded at once as a burst, which OpenClaw 2026.9.6 joins
 * into one message with a `[Forwarded from …]` line before each part and, unlike a single forward,
 * no forwarded context beside it: the message from its first such line on is what its authors
 * wrote. It taints the turn `external`, as a single forward does. Text the owner typed that looks
 * like any of these only makes the turn stricter.
 */
export function inlinedContent(text: string): InlinedContent {
  const found: ForeignText[] = [];
  let ownWords = "";
  let rest = text;
  for (let start = rest.indexOf(EXTERNAL_CONTENT_MARKER); start >= 0; start = rest.indexOf(EXTERNAL_CONTENT_MARKER)) {
    ownWords += rest.slice(0, start);
    const id = /^<<<EXTERNAL_UNTRUSTED_CONTENT id="([^"\n]*)">>>/.exec(rest.slice(start))?.[1];
    const end = id === undefined ? -1 : rest.indexOf(`${END_MARKER} id="${id}">>>`, start);
    rest = end < 0 ? "" : rest.slice(end + `${END_MARKER} id="${id}">>>`.length);
    if (found.length === 0) found.push({ level: "untrusted", what: "a file's text OpenClaw put in the message (content from outside, not the sender's words)" });
  }
  ownWords += rest;
  const forwarded = FORWARDED_PART.exec(ownWords);
  if (forwarded !== null) {
    ownWords = ownWords.slice(0, forwarded.index);
    found.push({ level: "external", what: "messages forwarded together, which someone else wrote" });
  }
  const described = DESCRIBED_MEDIA.exec(ownWords);
  if (described !== null) {
    ownWords = ownWords.slice(0, described.index) + captionOf(ownWords.slice(described.index + described[0].length + 1));
    found.push({ level: "untrusted", what: "a description of media attached to the message (of what someone else made)" });
  }
  const sticker = STICKER.exec(ownWords);
  if (sticker !== null) {
    ownWords = ownWords.slice(0, sticker.index);
    found.push({ level: "untrusted", what: "a description of a sticker sent with the message (of what someone else drew, under the name they gave its pack)" });
  }
  const withoutNotes = ownWords.replace(MEDIA_NOTE, "");
  if (withoutNotes !== ownWords) found.push({ level: "untrusted", what: "media attached to the message (what it shows is whoever made it, not the sender's words)" });
  return { ownWords: withoutNotes.replace(FILE_TAGS, "").trim(), found };
}

/**
 * A described attachment's section (`[Image]\nUser text:\n<caption>\nDescription:\n<text>`):
 * the caption the sender typed, if the section opens with one; the description, and every section
 * after it (a description could spell another section's header), are someone else's.
 */
function captionOf(section: string): string {
  if (!section.startsWith(CAPTION)) return "";
  const end = section.indexOf(DESCRIPTION);
  return end < 0 ? "" : section.slice(CAPTION.length, end);
}
