import type { Hono } from "hono";
import { readTurnGraphs, type TurnGraphRecord } from "../../state/turn-graph-log.js";
import type { ConsoleContext } from "./console-context.js";
import { Html, attr, html, page } from "./console-html.js";
import { notice, trustBadge } from "./console-widgets.js";
import { DEFAULT_SIZES, layoutGraph } from "./graph-layout.js";

/** Characters of a label drawn in a node; the whole label is in its tooltip and the details panel. */
const LABEL_CHARS = 40;

const KIND_NAMES: Readonly<Record<TurnGraphRecord["graph"]["nodes"][number]["kind"], string>> = {
  system_prompt: "system prompt",
  history: "history",
  watermark: "watermark",
  llm_call: "model call",
  tool: "tool output",
  output: "response",
  reset: "owner reset",
};

function truncate(text: string, max: number): string {
  const chars = [...text];
  return chars.length <= max ? text : `${chars.slice(0, max - 1).join("")}…`;
}

/** The turn's DAG as SVG, laid out on the server (graph-layout.ts); labels are text nodes, escaped. */
export function graphSvg(record: TurnGraphRecord): Html {
  const { nodes, taintSource } = record.graph;
  const layout = layoutGraph(nodes, taintSource);
  const s = DEFAULT_SIZES;
  const edges = layout.edges.map((e) => {
    const a = layout.nodes[e.from];
    const b = layout.nodes[e.to];
    if (a === undefined || b === undefined) return "";
    const x1 = a.x + s.nodeWidth / 2;
    const y1 = a.y + s.nodeHeight;
    const x2 = b.x + s.nodeWidth / 2;
    const y2 = b.y;
    const bend = (y2 - y1) / 2;
    return html`<path class="${e.onTaintPath ? "edge hwm" : "edge"}" d="${`M${x1} ${y1} C${x1} ${y1 + bend} ${x2} ${y2 - bend} ${x2} ${y2}`}"></path>`;
  });
  const drawn = layout.nodes.map((p) => {
    const node = nodes[p.id];
    if (node === undefined) return "";
    const classes = `node kind-${node.kind} trust-${node.trust}${p.onTaintPath ? " hwm" : ""}${p.id === taintSource ? " source" : ""}`;
    // Two lines, each escaped on its own: the newline between them is ours, any in the label is shown as \n.
    const title = html`${attr(`#${node.id} ${KIND_NAMES[node.kind]} · ${node.trust}${node.tool === null ? "" : ` · tool ${node.tool}`}`)}
${attr(node.label)}`;
    return html`<g class="${classes}" data-node="${node.id}" transform="${`translate(${p.x} ${p.y})`}" tabindex="0"><title>${title}</title><rect width="${s.nodeWidth}" height="${s.nodeHeight}" rx="6"></rect><text x="10" y="${s.nodeHeight / 2 + 5}">${attr(truncate(`${KIND_NAMES[node.kind]}: ${node.label}`, LABEL_CHARS))}</text></g>`;
  });
  return html`<svg id="graph" xmlns="http://www.w3.org/2000/svg" width="${layout.width}" height="${layout.height}" viewBox="${`0 0 ${layout.width} ${layout.height}`}" role="img" aria-label="${`provenance graph of ${nodes.length} nodes`}" data-nodes="${nodes.length}"><g class="edges">${edges}</g><g class="nodes">${drawn}</g></svg>`;
}

function legend(): Html {
  return html`<p class="legend"><span class="swatch trust-trusted"></span>trusted <span class="swatch trust-shared"></span>shared <span class="swatch trust-external"></span>external <span class="swatch trust-untrusted"></span>untrusted <span class="swatch hwm"></span>high-water-mark path</p>`;
}

export function registerGraphRoutes(app: Hono, ctx: ConsoleContext): void {
  app.get("/graphs", (c) => {
    const { records, bad } = readTurnGraphs(ctx.workspace);
    const rows = records
      .map((r, i) => ({ r, i }))
      .reverse()
      .map(
        ({ r, i }) =>
          html`<tr><td><a href="${`/graphs/${i}`}">${r.graph.turnId}</a></td><td class="mono">${r.sessionId}</td><td>${r.graph.nodes.length}</td><td>${trustBadge(r.graph.maxTaint)}</td><td>${r.endedAt}</td></tr>`,
      );
    const table =
      records.length === 0
        ? html`<p class="muted">No turn graphs in this workspace yet: each guard records a turn when it ends (or <code>provenant replay --graphs --workspace &lt;dir&gt; trace.jsonl</code>).</p>`
        : html`<table class="graphs"><thead><tr><th>turn</th><th>session</th><th>nodes</th><th>high-water mark</th><th>ended</th></tr></thead><tbody>${rows}</tbody></table>`;
    const problems = bad.map((b) => notice("error", html`${b.file} line ${b.line}: ${b.error}`));
    return c.html(page({ title: "Provenance graphs", active: "/graphs", csrfToken: ctx.access.csrfToken, workspace: ctx.workspace, body: html`${problems}${table}` }).value);
  });

  app.get("/graphs/:n", (c) => {
    const text = c.req.param("n");
    const { records } = readTurnGraphs(ctx.workspace);
    const record = /^(0|[1-9]\d{0,8})$/.test(text) ? records[Number(text)] : undefined;
    if (record === undefined) {
      return c.html(page({ title: "Provenance graph", active: "/graphs", csrfToken: ctx.access.csrfToken, workspace: ctx.workspace, body: notice("error", html`No such turn graph.`) }).value, 404);
    }
    const source = record.graph.taintSource === null ? undefined : record.graph.nodes[record.graph.taintSource];
    const body = html`<dl class="facts"><dt>turn</dt><dd class="mono">${record.graph.turnId}</dd><dt>session</dt><dd class="mono">${record.sessionId}</dd>
<dt>high-water mark</dt><dd>${trustBadge(record.graph.maxTaint)} set by ${source === undefined ? "nothing" : html`#${source.id} ${KIND_NAMES[source.kind]}: ${source.label}`}</dd>
<dt>nodes</dt><dd>${record.graph.nodes.length}</dd></dl>
${legend()}
<p><button type="button" id="graph-fit">Fit to width</button></p>
<div class="graph-wrap"><div id="node-details" class="details" aria-live="polite">Select a node to see it whole.</div><div class="graph-scroll">${graphSvg(record)}</div></div>`;
    return c.html(page({ title: "Provenance graph", active: "/graphs", csrfToken: ctx.access.csrfToken, workspace: ctx.workspace, body }).value);
  });
}
