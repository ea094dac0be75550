import type { TrustLevel } from "../../core/trust-levels.js";
import { Html, html } from "./console-html.js";

export function trustBadge(level: TrustLevel): Html {
  return html`<span class="${`trust trust-${level}`}">${level}</span>`;
}

export function notice(kind: "ok" | "error" | "warn", body: Html): Html {
  return html`<div class="${`notice notice-${kind}`}" role="${kind === "ok" ? "status" : "alert"}">${body}</div>`;
}

/**
 * A hidden form field that must come back exactly (a session id with a NUL, an escape or a lone
 * surrogate in it, which HTML or percent-encoding would alter or refuse): its UTF-16 code units in
 * hex, so the attribute holds [0-9a-f] only.
 */
export function formField(value: string): string {
  let out = "";
  for (let i = 0; i < value.length; i++) out += value.charCodeAt(i).toString(16).padStart(4, "0");
  return out;
}

/** The value a formField held; undefined for text that is not one. */
export function readFormField(text: string): string | undefined {
  if (text.length % 4 !== 0 || !/^[0-9a-f]*$/.test(text)) return undefined;
  let out = "";
  for (let i = 0; i < text.length; i += 4) out += String.fromCharCode(Number.parseInt(text.slice(i, i + 4), 16));
  return out;
}

/**
 * The fields of a POST as the console's own script sends them (URL-encoded); null for any other
 * content type or a body that does not parse, which the caller answers with 400.
 */
export async function readForm(request: { header(name: string): string | undefined; text(): Promise<string> }): Promise<ReadonlyMap<string, string> | null> {
  // Read whatever came (the body limit bounds it): a refusal sent before the body is read races the
  // client's write, and the client sees the connection reset instead of the answer.
  let body: string;
  try {
    body = await request.text();
  } catch {
    return null;
  }
  const type = request.header("content-type")?.split(";")[0]?.trim().toLowerCase();
  if (type !== "application/x-www-form-urlencoded") return null;
  try {
    const fields = new Map<string, string>();
    for (const [key, value] of new URLSearchParams(body)) {
      // A repeated field is ambiguous: which one did the owner mean?
      if (fields.has(key)) return null;
      fields.set(key, value);
    }
    return fields;
  } catch {
    return null;
  }
}
