import type { Hono } from "hono";
import { streamSSE } from "hono/streaming";
import { displayText } from "../../core/safe-display.js";
import { ApprovalStoreError, PendingApprovalStore, isApprovalCode, type PendingEntry } from "../../state/pending-approval-store.js";
import type { ActionReply, ConsoleContext } from "./console-context.js";
import { Html, html, page, showText } from "./console-html.js";
import { readForm, trustBadge } from "./console-widgets.js";

/** How often the live inbox looks at the store: the held call's agent retries on its own clock, a second is plenty. */
export const INBOX_POLL_MS = 1000;

/** Who the answer file names: the owner, from the console (the CLI writes "cli"). */
export const CONSOLE_ANSWER_BY = "console";

function entryHtml(e: PendingEntry): Html {
  const p = e.pending;
  const action = `/approvals/${p.code}/answer`;
  const answered =
    e.answer === null
      ? html`<span class="waiting">waiting for you</span>`
      : html`<strong>${e.answer.verdict === "approve" ? (e.answer.minutes === null ? "approved (this call)" : `approved for ${e.answer.minutes} minutes`) : "denied"}</strong> <span class="muted">by ${e.answer.by} at ${e.answer.answeredAt}; applied when the agent retries the call</span>`;
  return html`<article class="approval" data-code="${p.code}">
<header><span class="mono code">${p.code}</span> <strong class="tool">${p.tool}</strong> ${trustBadge(p.taint)} <span class="muted">from ${p.frontEnd} / ${p.origin}, session</span> <span class="mono">${p.sessionId}</span>
<span class="expires" data-expires="${p.expiresAt}">expires ${p.expiresAt}</span></header>
<h3>The exact call</h3>
<pre class="call">${showText(p.call, true)}</pre>
<h3>Why it was held</h3>
<pre class="why">${showText(p.reason, true)}</pre>
<p>Taint ${trustBadge(p.taint)} from: ${p.source === null ? html`<span class="muted">not recorded</span>` : html`<span class="mono">${p.source}</span>`}</p>
<p class="answer">${answered}</p>
<div class="actions">
<form method="post" action="${action}" class="inline"><input type="hidden" name="verdict" value="approve"><button type="submit" class="primary approve-call">Approve this call</button></form>
<form method="post" action="${action}" class="inline"><input type="hidden" name="verdict" value="approve"><label>the tool for <input type="number" name="minutes" min="1" max="1440" value="10" required> minutes</label> <button type="submit" class="approve-minutes">Approve</button></form>
<form method="post" action="${action}" class="inline"><input type="hidden" name="verdict" value="deny"><button type="submit" class="danger deny">Deny</button></form>
</div>
</article>`;
}

/** The inbox's list as HTML: the page renders it, and the event stream sends it again whenever the store changes. */
export function inboxHtml(entries: readonly PendingEntry[]): Html {
  if (entries.length === 0) return html`<p class="muted empty">No call is waiting for you.</p>`;
  return html`${entries.map(entryHtml)}`;
}

function openStore(ctx: ConsoleContext): PendingApprovalStore {
  return new PendingApprovalStore(ctx.workspace, (file, detail) => ctx.log(`console: approval file ${displayText(file)} skipped: ${displayText(detail)}`));
}

/** What changes the list: which codes are held, until when, and how each was answered. */
function fingerprint(entries: readonly PendingEntry[]): string {
  return JSON.stringify(entries.map((e) => [e.pending.code, e.pending.expiresAt, e.answer?.verdict ?? null, e.answer?.minutes ?? null, e.answer?.answeredAt ?? null]));
}

export function registerApprovalRoutes(app: Hono, ctx: ConsoleContext): void {
  app.get("/approvals", (c) => {
    const entries = openStore(ctx).list(ctx.now().getTime());
    const body = html`<p class="muted">Calls held by the MCP proxy (and any front end that writes the shared pending-approvals store), live. An answer is applied when the agent retries the exact call; approving the tool for the rest of a turn is not offered here, as the store carries no such answer.</p>
<section id="approvals" data-stream="/approvals/stream" aria-live="polite">${inboxHtml(entries)}</section>`;
    return c.html(page({ title: "Approvals", active: "/approvals", csrfToken: ctx.access.csrfToken, workspace: ctx.workspace, body }).value);
  });

  // Server-sent events: `inbox` with the list's HTML, at once and whenever the store changes.
  app.get("/approvals/stream", (c) =>
    streamSSE(c, async (stream) => {
      let last = "";
      let open = true;
      stream.onAbort(() => {
        open = false;
      });
      while (open) {
        const entries = openStore(ctx).list(ctx.now().getTime());
        const print = fingerprint(entries);
        if (print !== last) {
          last = print;
          await stream.writeSSE({ event: "inbox", data: inboxHtml(entries).value.replace(/\n/g, " ") });
        }
        await stream.sleep(INBOX_POLL_MS);
      }
    }),
  );

  // The same store call as `provenant approve <code> [--minutes n] [--deny]`.
  app.post("/approvals/:code/answer", async (c) => {
    const code = c.req.param("code");
    if (!isApprovalCode(code)) return c.json<ActionReply>({ ok: false, message: "no such held call" }, 404);
    const form = await readForm(c.req);
    if (form === null) return c.json<ActionReply>({ ok: false, message: "not a form the console sends" }, 400);
    const verdict = form.get("verdict");
    const minutesText = form.get("minutes");
    if (verdict !== "approve" && verdict !== "deny") return c.json<ActionReply>({ ok: false, message: "verdict must be approve or deny" }, 400);
    let minutes: number | null = null;
    if (verdict === "approve" && minutesText !== undefined) {
      minutes = /^\d{1,4}$/.test(minutesText) ? Number(minutesText) : Number.NaN;
      if (!(minutes >= 1 && minutes <= 1440)) return c.json<ActionReply>({ ok: false, message: "minutes must be a whole number from 1 to 1440" }, 400);
    }
    try {
      const held = openStore(ctx).answer(code, verdict, { minutes, by: CONSOLE_ANSWER_BY, now: ctx.now().getTime() });
      ctx.log(`console: ${verdict === "approve" ? "approved" : "denied"} held call ${code} (${displayText(held.tool)})${minutes === null ? "" : ` for ${minutes} minutes`}`);
      return c.json<ActionReply>({ ok: true, message: verdict === "approve" ? "approved: it runs when the agent retries the call" : "denied" });
    } catch (error) {
      if (error instanceof ApprovalStoreError) return c.json<ActionReply>({ ok: false, message: displayText(error.message) }, 409);
      throw error;
    }
  });
}
