package page

// style is the page's only style sheet: light by default, dark when the
// reader prefers it on screen, light on paper.
const style = `:root {
  --fg: #1b1b1b; --bg: #ffffff; --muted: #5a5a5a; --line: #d0d0d0; --head: #f1f3f5; --stripe: #fafafa;
  --pass-fg: #0b5d1e; --pass-bg: #e3f4e6; --fail-fg: #8a1111; --fail-bg: #fbe4e4;
  --warn-fg: #6b4a00; --warn-bg: #fff3cd; --info-fg: #0b4a75; --info-bg: #e4f0fa;
  --link: #0b57a4; --code-bg: #f4f4f4; --add-bg: #e3f4e6; --del-bg: #fbe4e4;
}
@media screen and (prefers-color-scheme: dark) {
  :root {
    --fg: #e6e6e6; --bg: #15171a; --muted: #a8a8a8; --line: #3a3f45; --head: #22262b; --stripe: #1a1d21;
    --pass-fg: #9fe0ad; --pass-bg: #16351e; --fail-fg: #ffb3b3; --fail-bg: #471818;
    --warn-fg: #ffe08a; --warn-bg: #3d3214; --info-fg: #a9d4ff; --info-bg: #152a3d;
    --link: #8cc4ff; --code-bg: #202328; --add-bg: #16351e; --del-bg: #471818;
  }
  svg.chart, .key { filter: invert(0.9) hue-rotate(180deg); }
}
* { box-sizing: border-box; }
html { color: var(--fg); background: var(--bg); }
body { font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Liberation Sans", sans-serif; margin: 0 auto; padding: 1rem 1.25rem 3rem; max-width: 72rem; }
h1 { font-size: 1.6rem; margin: 0.2rem 0 0.6rem; }
h2 { font-size: 1.3rem; margin: 2rem 0 0.6rem; padding-top: 0.4rem; border-top: 2px solid var(--line); }
h3 { font-size: 1.1rem; margin: 1.4rem 0 0.5rem; }
a { color: var(--link); }
p { margin: 0.4rem 0 0.6rem; }
code, pre { font: 13px/1.4 ui-monospace, "Liberation Mono", Menlo, Consolas, monospace; }
pre { background: var(--code-bg); padding: 0.6rem 0.8rem; overflow-x: auto; border-radius: 4px; }
dl.meta { display: grid; grid-template-columns: max-content 1fr; gap: 0.15rem 1rem; margin: 0 0 1rem; }
dl.meta dt { color: var(--muted); }
dl.meta dd { margin: 0; }
nav ol { columns: 2 18rem; margin: 0.2rem 0 1rem; padding-left: 1.4rem; }
nav ol ol { columns: 1; margin: 0; }
.note { color: var(--warn-fg); background: var(--warn-bg); padding: 0.3rem 0.6rem; border-radius: 4px; }
span.note { display: block; margin-top: 0.3rem; }
.more { color: var(--muted); font-size: 0.9em; }
.scroll { overflow-x: auto; margin: 0.4rem 0 0.8rem; }
table { border-collapse: collapse; font-size: 0.92em; }
caption { text-align: left; font-weight: 600; padding: 0.2rem 0; caption-side: top; }
th, td { border: 1px solid var(--line); padding: 0.2rem 0.5rem; vertical-align: top; text-align: left; }
thead th { background: var(--head); position: sticky; top: 0; }
tbody tr:nth-child(even) { background: var(--stripe); }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
td.pass { color: var(--pass-fg); background: var(--pass-bg); }
td.fail { color: var(--fail-fg); background: var(--fail-bg); font-weight: 600; }
td.warn { color: var(--warn-fg); background: var(--warn-bg); }
td.info { color: var(--info-fg); background: var(--info-bg); }
table.sortable thead th { cursor: pointer; }
figure.plot { margin: 0.8rem 0 1.4rem; max-width: 56rem; }
svg.chart { width: 100%; height: auto; display: block; background: #fff; border: 1px solid var(--line); }
figcaption { font-size: 0.92em; margin-top: 0.3rem; }
figcaption .fig-title, figcaption .fig-summary { display: block; }
figcaption .list-head { color: var(--muted); margin-right: 0.3rem; }
figcaption ul { display: inline; padding: 0; margin: 0; }
figcaption ul li { display: inline; }
figcaption ul li + li::before { content: " · "; color: var(--muted); }
figcaption ul + .list-head::before { content: ""; display: block; }
.key { display: inline-block; width: 0.8em; height: 0.8em; margin-right: 0.25em; vertical-align: -0.05em; border-radius: 2px; }
output.readout { display: block; min-height: 1.2em; color: var(--muted); font-variant-numeric: tabular-nums; }
.finding { border: 1px solid var(--line); border-left-width: 6px; border-radius: 4px; padding: 0.4rem 0.8rem; margin: 0.6rem 0; }
.finding.error { border-left-color: #c62828; }
.finding.warn { border-left-color: #c98a00; }
.finding.info { border-left-color: #1f6fb2; }
.finding h4 { margin: 0.2rem 0 0.4rem; font-size: 1rem; }
.finding h4, .finding p { overflow-wrap: anywhere; }
.sev { display: inline-block; font-size: 0.8em; font-weight: 700; padding: 0 0.4rem; border-radius: 3px; margin-right: 0.4rem; }
.sev.error { color: var(--fail-fg); background: var(--fail-bg); }
.sev.warn { color: var(--warn-fg); background: var(--warn-bg); }
.sev.info { color: var(--info-fg); background: var(--info-bg); }
.finding .id { color: var(--muted); font-size: 0.85em; }
.finding ol.evidence { margin: 0.2rem 0 0.4rem; padding-left: 1.4rem; }
.finding ol.evidence code { white-space: pre-wrap; word-break: break-all; }
.finding .label { font-weight: 600; }
pre.diff .add { background: var(--add-bg); }
pre.diff .del { background: var(--del-bg); }
pre.diff .hunk { color: var(--muted); }
footer { margin-top: 3rem; color: var(--muted); font-size: 0.85em; }
@media print {
  .key, td.pass, td.fail, td.warn, td.info, .sev, pre.diff .add, pre.diff .del { print-color-adjust: exact; -webkit-print-color-adjust: exact; }
  body { max-width: none; padding: 0; font-size: 11pt; }
  nav, output.readout, footer { display: none; }
  figure, table, .finding { break-inside: avoid; }
  h2, h3 { break-after: avoid; }
  thead th { position: static; }
  a { color: inherit; text-decoration: none; }
}
`

// script is optional: without it the page reads the same. It sorts a
// table by the column whose header is clicked, and shows the values under
// the pointer on a plot.
const script = `(function () {
  "use strict";
  function key(cell) {
    var s = cell.getAttribute("data-sort");
    return s === null ? cell.textContent : s;
  }
  document.querySelectorAll("table.sortable").forEach(function (t) {
    var heads = t.querySelectorAll("thead th");
    heads.forEach(function (th, col) {
      th.title = "sort by this column";
      th.addEventListener("click", function () {
        var body = t.tBodies[0];
        var rows = Array.prototype.slice.call(body.rows);
        var numeric = rows.every(function (r) { return r.cells[col] === undefined || !isNaN(parseFloat(key(r.cells[col]))); });
        var dir = th.getAttribute("aria-sort") === "ascending" ? -1 : 1;
        rows.sort(function (a, b) {
          var x = a.cells[col] ? key(a.cells[col]) : "", y = b.cells[col] ? key(b.cells[col]) : "";
          if (numeric) { return dir * (parseFloat(x) - parseFloat(y)); }
          return dir * x.localeCompare(y);
        });
        heads.forEach(function (h) { h.removeAttribute("aria-sort"); });
        th.setAttribute("aria-sort", dir === 1 ? "ascending" : "descending");
        rows.forEach(function (r) { body.appendChild(r); });
      });
    });
  });
  function fmt(v) {
    var a = Math.abs(v);
    if (a !== 0 && (a >= 1e5 || a < 1e-3)) { return v.toExponential(2); }
    return String(Number(v.toPrecision(4)));
  }
  function value(r, f) {
    var lo = r[1], hi = r[2];
    if (r[0] === "log") { return Math.exp(Math.log(lo) + f * (Math.log(hi) - Math.log(lo))); }
    return lo + f * (hi - lo);
  }
  document.querySelectorAll("svg.chart[data-area]").forEach(function (svg) {
    var out = svg.parentNode.querySelector("output.readout");
    var a = svg.getAttribute("data-area").split(" ").map(Number);
    var xr = svg.getAttribute("data-xr").split(" "), yr = svg.getAttribute("data-yr").split(" ");
    xr[1] = Number(xr[1]); xr[2] = Number(xr[2]); yr[1] = Number(yr[1]); yr[2] = Number(yr[2]);
    var xu = svg.getAttribute("data-xu"), yu = svg.getAttribute("data-yu");
    if (!out || !svg.createSVGPoint) { return; }
    var pt = svg.createSVGPoint();
    svg.addEventListener("pointermove", function (e) {
      var m = svg.getScreenCTM();
      if (!m) { return; }
      pt.x = e.clientX; pt.y = e.clientY;
      var p = pt.matrixTransform(m.inverse());
      var fx = (p.x - a[0]) / (a[2] - a[0]), fy = (a[3] - p.y) / (a[3] - a[1]);
      if (fx < 0 || fx > 1 || fy < 0 || fy > 1) { out.textContent = ""; return; }
      out.textContent = "x = " + fmt(value(xr, fx)) + " " + xu + ", y = " + fmt(value(yr, fy)) + " " + yu;
    });
    svg.addEventListener("pointerleave", function () { out.textContent = ""; });
  });
})();
`
