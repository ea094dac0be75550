import type { Hono } from "hono";
import { streamSSE } from "hono/streaming";
import { displayText } from "../../core/safe-display.js";
import {
  ApprovalStoreError,
  PendingApprovalStore,
  isApprovalCode,
  type AnswerScope,
  type ApprovalAnswer,
  type PendingApproval,
  type PendingArgument,
  type PendingEntry,
} from "../../state/pending-approval-store.js";
import { ConsoleHeartbeat, HEARTBEAT_INTERVAL_MS } from "../../state/console-presence.js";
import type { ActionReply, ConsoleContext } from "./console-context.js";
import { Html, html, page, showText } from "./console-html.js";
import { readForm, trustBadge } from "./console-widgets.js";

/** How often the live inbox looks at the store and refreshes the heartbeat that says it is open. */
export const INBOX_POLL_MS = HEARTBEAT_INTERVAL_MS;

/** Who the answer file names: the owner, from the console (the CLI writes "cli"). */
export const CONSOLE_ANSWER_BY = "console";

function answerText(a: ApprovalAnswer): string {
  if (a.verdict === "deny") return "denied";
  return a.scope === "minutes" ? `approved for ${a.minutes ?? "?"} minutes` : a.scope === "turn" ? "approved for the rest of the turn" : "approved (this call)";
}

function sourceHtml(s: PendingArgument["sources"][number]): Html {
  const what = s.kind === "tool" ? html`output of <span class="mono">${showText(s.tool ?? "a tool")}</span>` : s.kind === "owner" ? html`the owner's message` : html`a message`;
  return html`<li>${what} <span class="mono muted">${showText(s.id)}</span> ${trustBadge(s.trust)} <span class="muted">(${s.how === "owner-text" ? "the owner's own words" : s.how === "field" ? "a whole field" : "text"})</span></li>`;
}

function argumentsHtml(args: PendingApproval["arguments"]): Html {
  if (args === null) return html`<p class="muted no-arguments">Argument provenance did not run for this call.</p>`;
  if (args.length === 0) return html`<p class="muted no-arguments">No argument was traced.</p>`;
  return html`<table class="arguments"><thead><tr><th>argument</th><th>value</th><th>vouched for</th><th>where it came from</th></tr></thead><tbody>${args.map(
    (a) => html`<tr class="${a.determined ? "determined" : "undetermined"}"><td class="mono">${showText(a.path)} <span class="muted">(${showText(a.role)})</span></td><td class="mono value">${showText(a.value)}</td><td>${a.determined ? html`<span class="ok">yes</span>` : html`<strong class="ask">no</strong>`}<br><span class="muted finding">${showText(a.finding)}</span></td><td>${a.sources.length === 0 ? html`<span class="muted">no observed source</span>` : html`<ul class="sources">${a.sources.map(sourceHtml)}</ul>`}</td></tr>`,
  )}</tbody></table>`;
}

function entryHtml(e: PendingEntry): Html {
  const p = e.pending;
  const action = `/approvals/${p.code}/answer`;
  const applied = p.waitingUntil === null ? "applied when the agent retries the call" : "the waiting call goes on now";
  const answered =
    e.answer === null
      ? html`<span class="waiting">waiting for you</span>${p.waitingUntil === null ? "" : html` <span class="muted held-open" data-waiting="${p.waitingUntil}">the agent waits for your answer</span>`}`
      : html`<strong>${answerText(e.answer)}</strong> <span class="muted">by ${e.answer.by} at ${e.answer.answeredAt}; ${applied}</span>`;
  return html`<article class="approval" data-code="${p.code}">
<header><span class="mono code">${p.code}</span> <strong class="tool">${showText(p.tool)}</strong> ${trustBadge(p.taint)} <span class="muted">from</span> <span class="front-end">${showText(p.frontEnd)} / ${showText(p.origin)}</span><span class="muted">, session</span> <span class="mono session">${showText(p.sessionId)}</span>
<span class="expires" data-expires="${p.expiresAt}">expires ${p.expiresAt}</span></header>
<h3>The exact call</h3>
<pre class="call">${showText(p.call, true)}</pre>
<h3>Why it was held</h3>
<pre class="why">${showText(p.reason, true)}</pre>
<p>Taint ${trustBadge(p.taint)} from: ${p.source === null ? html`<span class="muted">not recorded</span>` : html`<span class="mono source">${showText(p.source)}</span>`}</p>
<h3>Each argument's provenance</h3>
${argumentsHtml(p.arguments)}
<p class="answer">${answered}</p>
<div class="actions">
<form method="post" action="${action}" class="inline"><input type="hidden" name="verdict" value="approve"><input type="hidden" name="scope" value="call"><button type="submit" class="primary approve-call">Approve this call</button></form>
<form method="post" action="${action}" class="inline"><input type="hidden" name="verdict" value="approve"><input type="hidden" name="scope" value="turn"><button type="submit" class="approve-turn">Approve the tool for this turn</button></form>
<form method="post" action="${action}" class="inline"><input type="hidden" name="verdict" value="approve"><input type="hidden" name="scope" value="minutes"><label>the tool for <input type="number" name="minutes" min="1" max="1440" value="10" required> minutes</label> <button type="submit" class="approve-minutes">Approve</button></form>
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
  return JSON.stringify(entries.map((e) => [e.pending.code, e.pending.expiresAt, e.pending.waitingUntil, e.answer?.verdict ?? null, e.answer?.scope ?? null, e.answer?.minutes ?? null, e.answer?.answeredAt ?? null]));
}

export function registerApprovalRoutes(app: Hono, ctx: ConsoleContext): void {
  app.get("/approvals", (c) => {
    const entries = openStore(ctx).list(ctx.now().getTime());
    const body = html`<p class="muted">Calls held by the MCP proxy, Claude Code's hooks and any front end that writes the shared pending-approvals store, live. While this page is open, a front end that can wait for your answer does: the held call goes on or fails as soon as you answer. Otherwise the answer applies when the agent retries the exact call.</p>
<section id="approvals" data-stream="/approvals/stream" aria-live="polite">${inboxHtml(entries)}</section>`;
    return c.html(page({ title: "Approvals", active: "/approvals", csrfToken: ctx.access.csrfToken, workspace: ctx.workspace, body }).value);
  });

  // While an inbox is open the owner is watching: holders that can wait for an answer do (console-presence.ts).
  const heartbeat = new ConsoleHeartbeat(openStore(ctx));
  let watching = 0;
  const beat = (): void => {
    try {
      heartbeat.beat(Date.now());
    } catch (error) {
      ctx.log(`console: could not refresh the approvals heartbeat: ${displayText(error instanceof Error ? error.message : String(error))}`);
    }
  };

  // Server-sent events: `inbox` with the list's HTML, at once and whenever the store changes.
  app.get("/approvals/stream", (c) =>
    streamSSE(c, async (stream) => {
      let last = "";
      let open = true;
      watching++;
      stream.onAbort(() => {
        if (!open) return;
        open = false;
        if (--watching === 0) {
          try {
            heartbeat.stop();
          } catch (error) {
            ctx.log(`console: could not remove the approvals heartbeat: ${displayText(error instanceof Error ? error.message : String(error))}`);
          }
        }
      });
      while (open) {
        beat();
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

  // The same store call as `provenant approve <code> [--minutes n | --turn] [--deny]`.
  app.post("/approvals/:code/answer", async (c) => {
    const code = c.req.param("code");
    if (!isApprovalCode(code)) return c.json<ActionReply>({ ok: false, message: "no such held call" }, 404);
    const form = await readForm(c.req);
    if (form === null) return c.json<ActionReply>({ ok: false, message: "not a form the console sends" }, 400);
    const verdict = form.get("verdict");
    const minutesText = form.get("minutes");
    const scopeText = form.get("scope");
    if (verdict !== "approve" && verdict !== "deny") return c.json<ActionReply>({ ok: false, message: "verdict must be approve or deny" }, 400);
    // Without a scope field (an older page) minutes decide, as before.
    const scope: AnswerScope | null = verdict === "deny" ? null : scopeText === undefined ? (minutesText === undefined ? "call" : "minutes") : scopeText === "call" || scopeText === "turn" || scopeText === "minutes" ? scopeText : null;
    if (verdict === "approve" && scope === null) return c.json<ActionReply>({ ok: false, message: "scope must be call, turn or minutes" }, 400);
    let minutes: number | null = null;
    if (scope === "minutes") {
      minutes = minutesText !== undefined && /^\d{1,4}$/.test(minutesText) ? Number(minutesText) : Number.NaN;
      if (!(minutes >= 1 && minutes <= 1440)) return c.json<ActionReply>({ ok: false, message: "minutes must be a whole number from 1 to 1440" }, 400);
    }
    try {
      const held = openStore(ctx).answer(code, verdict, { ...(scope === null ? {} : { scope }), minutes, by: CONSOLE_ANSWER_BY, now: ctx.now().getTime() });
      const what = scope === "minutes" ? ` for ${minutes} minutes` : scope === "turn" ? " for the rest of the turn" : "";
      ctx.log(`console: ${verdict === "approve" ? "approved" : "denied"} held call ${code} (${displayText(held.tool)})${what}`);
      const waiting = held.waitingUntil !== null && Date.parse(held.waitingUntil) > ctx.now().getTime();
      const next = waiting ? "the waiting call goes on now" : "it runs when the agent retries the call";
      return c.json<ActionReply>({ ok: true, message: verdict === "approve" ? `approved${what}: ${next}` : waiting ? "denied: the waiting call fails now" : "denied" });
    } catch (error) {
      if (error instanceof ApprovalStoreError) return c.json<ActionReply>({ ok: false, message: displayText(error.message) }, 409);
      throw error;
    }
  });
}
