import type { Hono } from "hono";
import { TRUST_LEVELS, isTrustLevel, type TrustLevel } from "../../core/trust-levels.js";
import { openLedger } from "../../ledger/index.js";
import { LedgerLockedError } from "../../ledger/writer-lock.js";
import { readStateFile } from "../../state/state-file-read.js";
import { parseWatermarkFile } from "../../state/watermark-file.js";
import { FileWatermarkStore, type Watermark } from "../../state/watermark-store.js";
import type { ActionReply, ConsoleContext } from "./console-context.js";
import { Html, html, page } from "./console-html.js";
import { formField, notice, readForm, readFormField, trustBadge } from "./console-widgets.js";

/** Who the watermark's reset history names for a reset made here: the owner, at the console. */
export const CONSOLE_RESET_BY = "owner (console)";

interface SessionRow {
  readonly sessionId: string;
  readonly watermark: Watermark;
}

function readSessions(ctx: ConsoleContext): { rows: SessionRow[]; quarantine: ReturnType<FileWatermarkStore["quarantine"]> } {
  // Opening the product's store first: a corrupt file is moved aside and quarantined as it would be for the guard.
  const store = new FileWatermarkStore(ctx.workspace, { log: ctx.log });
  try {
    const read = readStateFile(store.file);
    const ids = read.kind === "ok" ? [...parseWatermarkFile(read.text).keys()] : [];
    const rows: SessionRow[] = [];
    for (const sessionId of ids) {
      const watermark = store.get(sessionId);
      if (watermark !== undefined) rows.push({ sessionId, watermark });
    }
    return { rows, quarantine: store.quarantine() };
  } finally {
    store.close();
  }
}

function resetForm(sessionId: string | null): Html {
  const options = TRUST_LEVELS.map((level) => html`<option value="${level}">${level}</option>`);
  const session = sessionId === null ? html`<input name="session" required placeholder="session id" aria-label="session id">` : html`<input type="hidden" name="sessionRef" value="${formField(sessionId)}">`;
  return html`<form method="post" action="/sessions/reset" class="inline">${session}<select name="level" aria-label="reset to">${options}</select><button type="submit">Reset</button></form>`;
}

function sessionRow(row: SessionRow): Html {
  const w = row.watermark;
  const history = w.resetHistory.map(
    (r) => html`<tr><td>${r.resetAt}</td><td>${r.resetBy}</td><td>${trustBadge(r.previousLevel)}</td><td>${trustBadge(r.newLevel)}</td></tr>`,
  );
  const historyHtml =
    w.resetHistory.length === 0
      ? html`<span class="muted">none</span>`
      : html`<details><summary>${w.resetHistory.length} reset${w.resetHistory.length === 1 ? "" : "s"}</summary><table class="history"><thead><tr><th>at</th><th>by</th><th>from</th><th>to</th></tr></thead><tbody>${history}</tbody></table></details>`;
  return html`<tr data-session="${formField(row.sessionId)}">
<td class="mono">${row.sessionId}</td>
<td>${trustBadge(w.level)}</td>
<td class="reason">${w.reason}</td>
<td>${w.escalatedAt}<br><span class="muted">by ${w.escalatedBy}</span></td>
<td>${w.lastImpactedTool ?? html`<span class="muted">none</span>`}</td>
<td>${historyHtml}</td>
<td>${resetForm(row.sessionId)}</td>
</tr>`;
}

/**
 * The owner's `.reset-trust` from the console: the same store method the guard calls (the level
 * set and a record appended to `resetHistory`), and the same `trust-reset` entry in the ledger,
 * written first: a reset the ledger cannot record is not made.
 */
export function resetSession(ctx: ConsoleContext, sessionId: string, level: TrustLevel): ActionReply {
  const store = new FileWatermarkStore(ctx.workspace, { log: ctx.log });
  try {
    const from = store.get(sessionId)?.level ?? "trusted";
    let ledger;
    try {
      ledger = openLedger(ctx.ledgerPath);
    } catch (error) {
      if (error instanceof LedgerLockedError) {
        return { ok: false, message: "The ledger is open for writing by a running agent, so this reset could not be recorded and was not made. Reset from the agent's chat with .reset-trust instead." };
      }
      throw error;
    }
    try {
      ledger.record("CLAIM", { kind: "trust-reset", sessionId, turnId: null, from, to: level, via: "console" });
    } finally {
      ledger.close();
    }
    store.reset(sessionId, level, CONSOLE_RESET_BY, ctx.now());
    return { ok: true, message: `reset to ${level}`, redirect: "/sessions?done=reset" };
  } finally {
    store.close();
  }
}

export function registerSessionRoutes(app: Hono, ctx: ConsoleContext): void {
  app.get("/sessions", (c) => {
    const { rows, quarantine } = readSessions(ctx);
    const quarantineHtml =
      quarantine === null
        ? ""
        : notice(
            "error",
            html`Watermark state quarantined since ${quarantine.since}: ${quarantine.corruptFiles.map((f) => html`${f.file} was corrupt (kept as ${f.movedTo}: ${f.error}). `)}Every session is untrusted until the owner resets it.`,
          );
    const table =
      rows.length === 0
        ? html`<p class="muted">No session has a watermark in this workspace.</p>`
        : html`<table class="sessions"><thead><tr><th>session</th><th>taint</th><th>reason</th><th>since</th><th>last impacted tool</th><th>reset history</th><th>reset to</th></tr></thead><tbody>${rows.map(sessionRow)}</tbody></table>`;
    const done = c.req.query("done") === "reset" ? notice("ok", html`Session reset; the reset is in its history and in the ledger.`) : "";
    const body = html`${done}${quarantineHtml}${table}
<h2>Reset another session</h2>
<p class="muted">A running agent sees a reset made here when it next reads its watermark file: before a turn where its front end shares state, otherwise at its next watermark write or restart.</p>
${resetForm(null)}`;
    return c.html(page({ title: "Sessions", active: "/sessions", csrfToken: ctx.access.csrfToken, workspace: ctx.workspace, body }).value);
  });

  app.post("/sessions/reset", async (c) => {
    const form = await readForm(c.req);
    if (form === null) return c.json<ActionReply>({ ok: false, message: "not a form the console sends" }, 400);
    // A row's button sends the id encoded (exact bytes, control characters too); the free-text form sends it typed.
    const ref = form.get("sessionRef");
    const session = ref !== undefined ? readFormField(ref) : form.get("session");
    const level = form.get("level");
    if (typeof session !== "string" || session === "" || session.length > 4096) return c.json<ActionReply>({ ok: false, message: "name a session" }, 400);
    if (!isTrustLevel(level)) return c.json<ActionReply>({ ok: false, message: `level must be one of ${TRUST_LEVELS.join(", ")}` }, 400);
    return c.json(resetSession(ctx, session, level));
  });
}
