import { Worker } from "node:worker_threads";
import type { Hono } from "hono";
import { streamSSE } from "hono/streaming";
import { checkProofDocument, inclusionProofDocument, scanLog } from "../../ledger/index.js";
import type { ConsoleContext } from "./console-context.js";
import { Html, attr, html, page, pathPart, showText } from "./console-html.js";
import { notice } from "./console-widgets.js";
import { MAX_HITS, searchLedger, type LedgerHit } from "./ledger-search.js";
import type { LedgerStatus } from "./ledger-status.js";

const WORKER_URL = new URL(import.meta.url.endsWith(".ts") ? "./ledger-status-worker.ts" : "./ledger-status-worker.js", import.meta.url);

/** Runs ledgerStatus on a worker thread, reporting progress; the server keeps answering meanwhile. */
function verifyOnWorker(ctx: ConsoleContext, onProgress: (done: number, total: number) => void): Promise<LedgerStatus> {
  const workerData = { ledgerPath: ctx.ledgerPath, publicKeyPath: ctx.checkpointPublicKey };
  // From the TypeScript sources (tests) the worker first registers the loader that runs them, as the ledger's own workers do.
  const worker = WORKER_URL.pathname.endsWith(".ts")
    ? new Worker(`import("tsx/esm/api").then(({ register }) => { register(); return import(${JSON.stringify(WORKER_URL.href)}); });`, { eval: true, workerData })
    : new Worker(WORKER_URL, { workerData, execArgv: [] });
  return new Promise((resolve, reject) => {
    worker.on("message", (message: { kind: "progress"; done: number; total: number } | { kind: "status"; status: LedgerStatus } | { kind: "error"; message: string }) => {
      if (message.kind === "progress") onProgress(message.done, message.total);
      else if (message.kind === "status") resolve(message.status);
      else reject(new Error(message.message));
    });
    worker.on("error", reject);
    worker.on("exit", (code) => reject(new Error(`the verification worker exited (${code})`)));
  });
}

function entryJson(value: unknown): Html {
  return html`<pre class="json">${showText(JSON.stringify(value, null, 2), true)}</pre>`;
}

function hitRow(hit: LedgerHit): Html {
  const data = hit.entry.data;
  const at = typeof data.at === "string" ? data.at : "";
  const kind = typeof data.kind === "string" ? data.kind : "";
  return html`<tr>
<td><a href="${`/ledger/entries/${hit.index}`}">${hit.index}</a></td>
<td>${hit.entry.type}</td>
<td>${kind}</td>
<td>${at}</td>
<td><details><summary>data</summary>${entryJson(data)}</details></td>
</tr>`;
}

function searchSection(session: string | undefined, tool: string | undefined, ctx: ConsoleContext): Html {
  const form = html`<form method="get" action="/ledger" class="inline search">
<label>session <input name="session" value="${attr(session ?? "")}"></label>
<label>tool <input name="tool" value="${attr(tool ?? "")}"></label>
<button type="submit">Search</button></form>`;
  if (session === undefined && tool === undefined) return form;
  const { hits, total } = searchLedger(ctx.ledgerPath, { ...(session === undefined ? {} : { session }), ...(tool === undefined ? {} : { tool }) });
  const shown = total > MAX_HITS ? html`<p class="muted">${total} entries match; the newest ${MAX_HITS} are shown.</p>` : html`<p class="muted">${total} matching entr${total === 1 ? "y" : "ies"}.</p>`;
  const table =
    hits.length === 0
      ? ""
      : html`<table class="entries"><thead><tr><th>position</th><th>type</th><th>kind</th><th>at</th><th>data</th></tr></thead><tbody>${hits.map(hitRow)}</tbody></table>`;
  return html`${form}${shown}${table}`;
}

function statusHtml(status: LedgerStatus): Html {
  if (!status.exists) return notice("warn", html`There is no ledger in this workspace yet.`);
  const verdict =
    status.problem === null
      ? notice("ok", html`<strong>Verified:</strong> ${status.size} entries in ${status.chains} chain${status.chains === 1 ? "" : "s"}, every hash recomputed from genesis.`)
      : notice("error", html`<strong>Does not verify:</strong> ${status.problem}`);
  const cp = status.checkpoint;
  const checkpoint =
    cp === null
      ? html`<p class="muted">No signed checkpoint yet (<code>provenant ledger checkpoint</code> writes one).</p>`
      : notice(cp.state === "verified" ? "ok" : cp.state === "unverifiable" ? "warn" : "error", html`<strong>Latest checkpoint</strong> (${cp.file}, size ${cp.size ?? "?"}): ${cp.state}. ${cp.detail}`);
  return html`${verdict}<dl class="facts"><dt>origin</dt><dd class="mono">${status.origin ?? ""}</dd><dt>head</dt><dd class="mono">${status.head ?? "-"}</dd></dl>${checkpoint}`;
}

export function registerLedgerRoutes(app: Hono, ctx: ConsoleContext): void {
  app.get("/ledger", (c) => {
    const text = (name: string): string | undefined => {
      const v = c.req.query(name);
      return v === undefined || v === "" ? undefined : v;
    };
    const body = html`<section id="ledger-status" data-stream="/ledger/verify" aria-live="polite">
<p>Verifying <progress id="verify-progress" max="100" value="0"></progress> <span id="verify-percent">0%</span></p>
</section>
<h2>Search</h2>
${searchSection(text("session"), text("tool"), ctx)}`;
    return c.html(page({ title: "Ledger", active: "/ledger", csrfToken: ctx.access.csrfToken, workspace: ctx.workspace, body }).value);
  });

  // Server-sent events: `progress` ({done,total} bytes) while the chains are recomputed, then `status` (HTML to show).
  app.get("/ledger/verify", (c) =>
    streamSSE(c, async (stream) => {
      try {
        const status = await verifyOnWorker(ctx, (done, total) => {
          void stream.writeSSE({ event: "progress", data: JSON.stringify({ done, total }) });
        });
        await stream.writeSSE({ event: "status", data: statusHtml(status).value.replace(/\n/g, " ") });
      } catch (error) {
        ctx.log(`console: ledger verification failed: ${error instanceof Error ? error.message : String(error)}`);
        await stream.writeSSE({ event: "status", data: notice("error", html`The ledger could not be verified; see the console's log.`).value.replace(/\n/g, " ") });
      }
    }),
  );

  app.get("/ledger/entries/:index", (c) => {
    const text = c.req.param("index");
    const index = /^(0|[1-9]\d{0,15})$/.test(text) ? Number(text) : Number.NaN;
    const render = (body: Html, status: 200 | 404 = 200): Response =>
      c.html(page({ title: `Ledger entry ${Number.isSafeInteger(index) ? index : ""}`, active: "/ledger", csrfToken: ctx.access.csrfToken, workspace: ctx.workspace, body }).value, status);
    if (!Number.isSafeInteger(index)) return render(notice("error", html`Not a log position.`), 404);
    const scan = scanLog(ctx.ledgerPath, { tree: true, entryAt: index });
    if (scan.found === undefined || scan.fault !== undefined) {
      const why = scan.fault !== undefined ? "the ledger does not verify, so no proof is given" : `the log holds ${scan.size} entries`;
      return render(notice("error", html`No proof for position ${index}: ${why}.`), 404);
    }
    const proof = inclusionProofDocument(scan, index, scan.size);
    const check = checkProofDocument(proof);
    const checked = check.ok ? notice("ok", html`<strong>Proof checks:</strong> ${check.summary}`) : notice("error", html`<strong>Proof fails:</strong> ${check.reason}`);
    const body = html`<p><a href="${`/ledger?session=${typeof scan.found.entry.data.sessionId === "string" ? pathPart(scan.found.entry.data.sessionId) : ""}`}">entries of this session</a></p>
<h2>Entry</h2>${entryJson({ index: scan.found.index, chain: scan.found.chain, ...scan.found.entry })}
<h2>Inclusion proof</h2>${checked}
<p class="muted">The entry's leaf hash and these ${proof.proof.length} sibling hashes rebuild the root of the tree of ${proof.size} entries; <code>provenant ledger check-proof</code> checks the same document offline.</p>
<pre class="json" id="proof">${showText(JSON.stringify(proof, null, 2), true)}</pre>`;
    return render(body);
  });
}
