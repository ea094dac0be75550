/**
 * The console's only stylesheet and script, served from its own origin (the Content-Security-Policy
 * allows nothing inline). The script never builds markup from data: it sets textContent, follows
 * redirects the server chose, and inserts only HTML the server rendered and escaped.
 */

export const CONSOLE_CSS = `
:root { --trusted: #1b7f3b; --shared: #1f5fa8; --external: #b76e00; --untrusted: #b3261e; --hwm: #6a1b9a; --line: #d0d4da; --muted: #5f6670; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 system-ui, sans-serif; color: #1d2127; background: #f6f7f9; }
body > header { display: flex; gap: 1.5rem; align-items: center; padding: .6rem 1.2rem; background: #1d2127; color: #fff; }
body > header .brand { font-weight: 700; letter-spacing: .02em; }
body > header nav a { color: #c9d1d9; text-decoration: none; margin-right: 1rem; }
body > header nav a.active { color: #fff; border-bottom: 2px solid #fff; }
body > header .workspace { margin-left: auto; font-family: ui-monospace, monospace; font-size: 12px; color: #9aa4ae; }
main { padding: 1rem 1.2rem 3rem; }
h1 { font-size: 1.4rem; margin: .2rem 0 1rem; }
h2 { font-size: 1.1rem; margin: 1.6rem 0 .6rem; }
table { border-collapse: collapse; width: 100%; background: #fff; }
th, td { border: 1px solid var(--line); padding: .35rem .5rem; text-align: left; vertical-align: top; }
th { background: #eef0f3; font-weight: 600; }
.mono, code, pre { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: 12.5px; }
.muted { color: var(--muted); }
.reason { max-width: 32rem; overflow-wrap: anywhere; }
.esc { background: #fff3bf; color: #8a4b00; border: 1px solid #e6c35c; border-radius: 3px; padding: 0 1px; font-family: ui-monospace, monospace; }
.trust { display: inline-block; padding: 0 .45rem; border-radius: 999px; color: #fff; font-size: 12px; font-weight: 600; }
.trust-trusted { background: var(--trusted); } .trust-shared { background: var(--shared); }
.trust-external { background: var(--external); } .trust-untrusted { background: var(--untrusted); }
.notice { padding: .6rem .8rem; border-radius: 6px; margin: .6rem 0; border: 1px solid; overflow-wrap: anywhere; }
.notice-ok { background: #e7f5ec; border-color: #9fd3b0; } .notice-warn { background: #fff6e0; border-color: #f0cf7a; }
.notice-error { background: #fdecea; border-color: #f0a9a3; }
#flash.ok { background: #e7f5ec; padding: .6rem; } #flash.error { background: #fdecea; padding: .6rem; overflow-wrap: anywhere; }
form.inline { display: inline-flex; gap: .4rem; align-items: center; flex-wrap: wrap; margin: 0; }
button { font: inherit; padding: .25rem .7rem; border-radius: 5px; border: 1px solid #9aa4ae; background: #fff; cursor: pointer; }
button.primary { background: #1f5fa8; color: #fff; border-color: #1f5fa8; } button.danger { background: #b3261e; color: #fff; border-color: #b3261e; }
.actions { display: flex; gap: 1.5rem; margin: 1rem 0; flex-wrap: wrap; }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: .2rem 1rem; background: #fff; padding: .7rem 1rem; border: 1px solid var(--line); border-radius: 6px; }
dl.facts dt { font-weight: 600; } dl.facts dd { margin: 0; overflow-wrap: anywhere; }
table.diff td.code { white-space: pre-wrap; overflow-wrap: anywhere; font-family: ui-monospace, monospace; font-size: 12.5px; }
table.diff td.ln { width: 3.5rem; color: var(--muted); text-align: right; font-family: ui-monospace, monospace; font-size: 12px; }
table.diff td.sign { width: 1.2rem; font-family: ui-monospace, monospace; }
tr.diff-add td { background: #e6ffec; } tr.diff-del td { background: #ffebe9; }
pre { white-space: pre-wrap; overflow-wrap: anywhere; background: #fff; border: 1px solid var(--line); padding: .6rem; border-radius: 6px; }
pre.add { background: #e6ffec; } pre.del { background: #ffebe9; }
.edit { display: grid; grid-template-columns: 1fr 1fr; gap: .6rem; }
.legend .swatch { display: inline-block; width: .9rem; height: .9rem; border-radius: 3px; vertical-align: -2px; margin: 0 .25rem 0 .8rem; }
.legend .swatch.hwm { background: var(--hwm); }
.graph-wrap { display: grid; grid-template-columns: 18rem 1fr; gap: 1rem; align-items: start; }
.details { position: sticky; top: 1rem; background: #fff; border: 1px solid var(--line); border-radius: 6px; padding: .7rem; white-space: pre-wrap; overflow-wrap: anywhere; font-size: 13px; }
.graph-scroll { overflow: auto; max-height: 80vh; background: #fff; border: 1px solid var(--line); border-radius: 6px; }
svg.fit { width: 100%; height: 78vh; }
svg .edge { fill: none; stroke: #9aa4ae; stroke-width: 1.5; }
svg .edge.hwm { stroke: var(--hwm); stroke-width: 3.5; }
svg .node rect { fill: #fff; stroke-width: 2; }
svg .node.trust-trusted rect { stroke: var(--trusted); } svg .node.trust-shared rect { stroke: var(--shared); }
svg .node.trust-external rect { stroke: var(--external); } svg .node.trust-untrusted rect { stroke: var(--untrusted); fill: #fdecea; }
svg .node.hwm rect { stroke: var(--hwm); stroke-width: 3.5; }
svg .node.source rect { fill: #f3e5f5; }
svg .node.selected rect { stroke: #000; stroke-dasharray: 4 2; }
svg .node text { font: 12px ui-monospace, monospace; fill: #1d2127; pointer-events: none; }
svg .node { cursor: pointer; }
article.approval { background: #fff; border: 1px solid var(--line); border-left: 4px solid var(--untrusted); border-radius: 6px; padding: .7rem 1rem; margin: .8rem 0; }
article.approval header { display: flex; gap: .6rem; align-items: center; flex-wrap: wrap; }
article.approval h3 { font-size: .9rem; margin: .7rem 0 .3rem; }
article.approval .code { background: #eef0f3; padding: 0 .3rem; border-radius: 3px; }
article.approval .expires { margin-left: auto; font-weight: 600; } article.approval .expires.expired { color: var(--untrusted); }
article.approval input[type=number] { width: 5rem; }
.waiting { color: var(--external); font-weight: 600; }
table.arguments { border-collapse: collapse; width: 100%; font-size: .85rem; } table.arguments td, table.arguments th { border-top: 1px solid var(--line); padding: .25rem .4rem; text-align: left; vertical-align: top; }
table.arguments tr.undetermined td.value { color: var(--untrusted); } table.arguments ul.sources { margin: 0; padding-left: 1rem; } .ask { color: var(--untrusted); }
`;

export const CONSOLE_JS = `"use strict";
(function () {
  var meta = document.querySelector('meta[name="provenant-csrf"]');
  var csrf = meta ? meta.getAttribute("content") : "";
  var flash = document.getElementById("flash");
  function show(text, ok) {
    if (!flash) return;
    flash.hidden = false;
    flash.className = ok ? "ok" : "error";
    flash.textContent = text;
  }
  function samePath(target) {
    return typeof target === "string" && target.charAt(0) === "/" && target.charAt(1) !== "/" && target.charAt(1) !== "\\\\";
  }

  // Every state-changing form goes through fetch, so that it carries the CSRF header.
  document.addEventListener("submit", function (event) {
    var form = event.target;
    if (!(form instanceof HTMLFormElement) || form.getAttribute("method") !== "post") return;
    event.preventDefault();
    var body = new URLSearchParams(new FormData(form, event.submitter));
    var buttons = form.querySelectorAll("button");
    buttons.forEach(function (b) { b.disabled = true; });
    fetch(form.getAttribute("action"), {
      method: "POST",
      credentials: "same-origin",
      headers: { "x-provenant-csrf": csrf, "content-type": "application/x-www-form-urlencoded" },
      body: body
    }).then(function (res) {
      return res.json().catch(function () { return { ok: false, message: "the console refused the request (HTTP " + res.status + ")" }; });
    }).then(function (reply) {
      if (reply.ok && samePath(reply.redirect)) { window.location.assign(reply.redirect); return; }
      show(String(reply.message), reply.ok === true);
      buttons.forEach(function (b) { b.disabled = false; });
    }, function () {
      show("the console did not answer", false);
      buttons.forEach(function (b) { b.disabled = false; });
    });
  });

  // The ledger page: verification runs on the server, progress and the verdict arrive as events.
  var status = document.getElementById("ledger-status");
  if (status && samePath(status.getAttribute("data-stream"))) {
    var source = new EventSource(status.getAttribute("data-stream"));
    var bar = document.getElementById("verify-progress");
    var percent = document.getElementById("verify-percent");
    source.addEventListener("progress", function (event) {
      var p = JSON.parse(event.data);
      var value = p.total > 0 ? Math.floor((p.done / p.total) * 100) : 100;
      if (bar) bar.value = value;
      if (percent) percent.textContent = value + "%";
    });
    source.addEventListener("status", function (event) {
      source.close();
      // Rendered and escaped by the server, like every page.
      var doc = new DOMParser().parseFromString("<div>" + event.data + "</div>", "text/html");
      status.replaceChildren.apply(status, Array.prototype.slice.call(doc.body.firstChild.childNodes));
      status.setAttribute("data-done", "1");
    });
    source.onerror = function () { source.close(); };
  }

  // The approvals inbox: the server sends the list again whenever the store changes.
  var inbox = document.getElementById("approvals");
  if (inbox && samePath(inbox.getAttribute("data-stream"))) {
    var events = new EventSource(inbox.getAttribute("data-stream"));
    events.addEventListener("inbox", function (event) {
      // Rendered and escaped by the server, like every page.
      var doc = new DOMParser().parseFromString("<div>" + event.data + "</div>", "text/html");
      inbox.replaceChildren.apply(inbox, Array.prototype.slice.call(doc.body.firstChild.childNodes));
      inbox.setAttribute("data-updates", String(Number(inbox.getAttribute("data-updates") || "0") + 1));
      tick();
    });
    var tick = function () {
      inbox.querySelectorAll("[data-expires]").forEach(function (el) {
        var left = Math.round((Date.parse(el.getAttribute("data-expires")) - Date.now()) / 1000);
        el.textContent = left > 0 ? "expires in " + left + " s" : "expired";
        el.classList.toggle("expired", left <= 0);
      });
    };
    tick();
    setInterval(tick, 1000);
  }

  // The provenance graph: a node's whole label in the side panel, fit-to-width toggle.
  var graph = document.getElementById("graph");
  var details = document.getElementById("node-details");
  if (graph && details) {
    var selected = null;
    function select(node) {
      if (selected) selected.classList.remove("selected");
      selected = node;
      node.classList.add("selected");
      var title = node.querySelector("title");
      details.textContent = title ? title.textContent : "";
    }
    graph.addEventListener("click", function (event) {
      var node = event.target instanceof Element ? event.target.closest("[data-node]") : null;
      if (node) select(node);
    });
    graph.addEventListener("keydown", function (event) {
      var node = event.target instanceof Element ? event.target.closest("[data-node]") : null;
      if (node && (event.key === "Enter" || event.key === " ")) { event.preventDefault(); select(node); }
    });
    var fit = document.getElementById("graph-fit");
    if (fit) fit.addEventListener("click", function () {
      graph.classList.toggle("fit");
      fit.textContent = graph.classList.contains("fit") ? "Actual size" : "Fit to width";
    });
  }
})();
`;
