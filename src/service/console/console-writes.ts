import type { Hono } from "hono";
import { displayText } from "../../core/safe-display.js";
import { BlockedWriteError, BlockedWriteStore, type StagedWrite } from "../../state/blocked-write-store.js";
import { readStateFile } from "../../state/state-file-read.js";
import type { ActionReply, ConsoleContext } from "./console-context.js";
import { Html, html, page, pathPart, showText } from "./console-html.js";
import { lineDiff, type DiffLine } from "./line-diff.js";
import { notice, readForm, trustBadge } from "./console-widgets.js";

/** The full id, as the store names files: nothing else reaches the store from a URL. */
const FULL_ID = /^[0-9a-f]{32}$/;


function diffTable(lines: readonly DiffLine[]): Html {
  const rows = lines.map((d) => {
    const sign = d.op === "add" ? "+" : d.op === "del" ? "-" : " ";
    return html`<tr class="${`diff-${d.op}`}"><td class="ln">${d.op === "add" ? "" : d.line}</td><td class="ln">${d.op === "add" ? d.line : ""}</td><td class="sign">${sign}</td><td class="code">${showText(d.text, true)}</td></tr>`;
  });
  return html`<table class="diff"><thead><tr><th>now</th><th>staged</th><th></th><th>content</th></tr></thead><tbody>${rows}</tbody></table>`;
}

function summaryRow(w: StagedWrite): Html {
  return html`<tr>
<td class="mono"><a href="${`/writes/${pathPart(w.id)}`}">${w.id.slice(0, 12)}</a></td>
<td>${w.createdAt}</td>
<td class="mono">${w.sessionId}</td>
<td>${w.tool} <span class="muted">(${w.operation})</span></td>
<td class="mono">${w.targetPath}</td>
<td>${trustBadge(w.taint)}</td>
<td class="reason">${w.reason}</td>
<td>${Buffer.byteLength(w.content, "utf8")} bytes</td>
</tr>`;
}

function detail(w: StagedWrite): Html {
  // Read the way state files are: a symbolic link, a device, a file too big or not UTF-8 is
  // described, not read (a link swapped in could point the console at anything, /dev/zero too).
  const current = readStateFile(w.resolvedPath);
  const before = current.kind === "ok" ? current.text : null;
  const lines = lineDiff(before, w.content);
  const changed = lines.some((l) => l.op !== "same");
  const currentNote =
    current.kind === "missing"
      ? notice("warn", html`The file does not exist yet: committing creates it.`)
      : current.kind === "bad"
        ? notice("error", html`The file as it is now cannot be shown: it ${current.detail}. The staged content is shown whole below.`)
        : before === w.content
          ? notice("ok", html`The file already holds the staged content.`)
          : !changed
            ? notice("warn", html`The staged content differs from the file only in its final newline.`)
            : "";
  const edits = (w.edits ?? []).map(
    (e, i) => html`<h3>Edit ${i + 1}${e.replaceAll === true ? " (replace all)" : ""}</h3><div class="edit"><pre class="del">${showText(e.oldText, true)}</pre><pre class="add">${showText(e.newText, true)}</pre></div>`,
  );
  const action = (what: string): string => `/writes/${pathPart(w.id)}/${what}`;
  return html`<dl class="facts">
<dt>id</dt><dd class="mono">${w.id}</dd>
<dt>created</dt><dd>${w.createdAt}</dd>
<dt>session</dt><dd class="mono">${w.sessionId}</dd>
<dt>tool</dt><dd>${w.tool} (${w.operation})</dd>
<dt>target</dt><dd class="mono">${w.targetPath}</dd>
<dt>resolved</dt><dd class="mono">${w.resolvedPath}</dd>
<dt>taint</dt><dd>${trustBadge(w.taint)}</dd>
<dt>reason</dt><dd class="reason">${showText(w.reason, true)}</dd>
<dt>base</dt><dd class="mono">${w.baseSha256 ?? "(the file did not exist)"}</dd>
</dl>
<div class="actions">
<form method="post" action="${action("commit")}" class="inline"><label><input type="checkbox" name="force" value="1"> write even if the file changed or moved since staging</label> <button type="submit" class="primary" id="commit">Commit</button></form>
<form method="post" action="${action("discard")}" class="inline"><button type="submit" class="danger" id="discard">Discard</button></form>
</div>
${edits}
<h2>Staged content against the file as it is now</h2>
${currentNote}
${current.kind === "bad" ? html`<pre class="content">${showText(w.content, true)}</pre>` : diffTable(lines)}`;
}

/** A store error in words for the owner, with the staged data it quotes escaped. */
function failure(error: unknown, ctx: ConsoleContext): ActionReply {
  if (error instanceof BlockedWriteError) {
    const hint = error.code === "target-changed" || error.code === "target-moved" ? " Tick the box to write it anyway." : "";
    return { ok: false, message: displayText(error.message.replace(/commit with --force/g, "commit with the box ticked")) + hint };
  }
  ctx.log(`console: staged write action failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  return { ok: false, message: "the action failed; see the console's log" };
}

export function registerWriteRoutes(app: Hono, ctx: ConsoleContext): void {
  app.get("/writes", (c) => {
    const store = new BlockedWriteStore(ctx.workspace);
    const writes = store.list();
    const unreadable = store.unreadable();
    const done = c.req.query("done");
    const doneHtml = done === "committed" ? notice("ok", html`Committed: the file now holds the staged content.`) : done === "discarded" ? notice("ok", html`Discarded.`) : "";
    const bad = unreadable.map((u) => notice("error", html`Unreadable staged write ${u.file}: ${u.error}`));
    const table =
      writes.length === 0
        ? html`<p class="muted">No staged writes.</p>`
        : html`<table class="writes"><thead><tr><th>id</th><th>created</th><th>session</th><th>tool</th><th>target</th><th>taint</th><th>reason</th><th>size</th></tr></thead><tbody>${writes.map(summaryRow)}</tbody></table>`;
    return c.html(page({ title: "Staged writes", active: "/writes", csrfToken: ctx.access.csrfToken, workspace: ctx.workspace, body: html`${doneHtml}${bad}${table}` }).value);
  });

  app.get("/writes/:id", (c) => {
    const id = c.req.param("id");
    if (!FULL_ID.test(id)) return c.text("not found", 404);
    let staged: StagedWrite;
    try {
      staged = new BlockedWriteStore(ctx.workspace).get(id);
    } catch (error) {
      const message = error instanceof BlockedWriteError ? error.message : "the staged write cannot be read";
      return c.html(page({ title: "Staged write", active: "/writes", csrfToken: ctx.access.csrfToken, workspace: ctx.workspace, body: notice("error", html`${message}`) }).value, 404);
    }
    return c.html(page({ title: "Staged write", active: "/writes", csrfToken: ctx.access.csrfToken, workspace: ctx.workspace, body: detail(staged) }).value);
  });

  // The same store calls as `provenant blocked-writes commit|discard`.
  app.post("/writes/:id/commit", async (c) => {
    const id = c.req.param("id");
    if (!FULL_ID.test(id)) return c.json<ActionReply>({ ok: false, message: "no such staged write" }, 404);
    const form = await readForm(c.req);
    if (form === null) return c.json<ActionReply>({ ok: false, message: "not a form the console sends" }, 400);
    try {
      const result = new BlockedWriteStore(ctx.workspace).commit(id, { force: form.get("force") === "1" });
      ctx.log(`console: committed staged write ${id} to ${displayText(result.staged.resolvedPath)}`);
      return c.json<ActionReply>({ ok: true, message: "committed", redirect: "/writes?done=committed" });
    } catch (error) {
      return c.json(failure(error, ctx), 409);
    }
  });

  app.post("/writes/:id/discard", (c) => {
    const id = c.req.param("id");
    if (!FULL_ID.test(id)) return c.json<ActionReply>({ ok: false, message: "no such staged write" }, 404);
    try {
      new BlockedWriteStore(ctx.workspace).discard(id);
      ctx.log(`console: discarded staged write ${id}`);
      return c.json<ActionReply>({ ok: true, message: "discarded", redirect: "/writes?done=discarded" });
    } catch (error) {
      return c.json(failure(error, ctx), 409);
    }
  });
}
