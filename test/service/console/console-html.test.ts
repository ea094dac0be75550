import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Html, attr, escapeHtml, html, showText } from "../../../src/service/console/console-html.js";
import { formField, readFormField } from "../../../src/service/console/console-widgets.js";

/** The only markup showText may emit: the escape marker around a visible escape. */
const MARKER = /<span class=esc>\\(?:x[0-9a-f]{2}|u[0-9a-f]{4}|[nrt])<\/span>/g;

const hostile = fc.oneof(
  fc.string({ unit: "binary" }),
  fc.string({ unit: fc.constantFrom("<", ">", "&", '"', "'", "\u001b", "\u202e", "\u0000", "\r", "\n", "\u2028", "\ud800", "a", "/", "=", "\\") }),
);

describe("console HTML escaping", () => {
  it("showText: no tag, quote or unsafe character of the input survives, only the escape marker", () => {
    fc.assert(
      fc.property(hostile, (text) => {
        const out = showText(text).value.replace(MARKER, "");
        expect(out).not.toMatch(/[<>"']/);
        expect(out).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069\u2028\u2029]/);
      }),
      { numRuns: 3000 },
    );
  });

  it("showText keeps newlines and tabs when asked to, and marks everything else", () => {
    expect(showText("a\n\tb\u001b[31m", true).value).toBe("a\n\tb<span class=esc>\\x1b</span>[31m");
    expect(showText("a\nb").value).toBe("a<span class=esc>\\n</span>b");
    expect(showText("<b>&</b>").value).toBe("&lt;b&gt;&amp;&lt;/b&gt;");
  });

  it("attr: no markup and nothing that can end an attribute value", () => {
    fc.assert(
      fc.property(hostile, (text) => {
        const out = attr(text).value;
        expect(out).not.toMatch(/[<>"']/);
        expect(out).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u202a-\u202e]/);
      }),
      { numRuns: 3000 },
    );
  });

  it("the html tag escapes strings, writes Html as it is, joins arrays", () => {
    const out = html`<p>${"<i>"}${new Html("<b>ok</b>")}${[1, "<", null]}</p>`;
    expect(out.value).toBe("<p>&lt;i&gt;<b>ok</b>1&lt;</p>");
    expect(escapeHtml(`&<>"'`)).toBe("&amp;&lt;&gt;&quot;&#39;");
  });

  it("form fields come back exactly, lone surrogates and NULs included, and hold [0-9a-f] only", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary" }), (text) => {
        const field = formField(text);
        expect(field).toMatch(/^[0-9a-f]*$/);
        expect(readFormField(field)).toBe(text);
      }),
      { numRuns: 3000 },
    );
    fc.assert(
      fc.property(fc.string(), (junk) => {
        const back = readFormField(junk);
        if (back !== undefined) expect(formField(back)).toBe(junk);
      }),
    );
  });
});
