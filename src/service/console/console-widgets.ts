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
