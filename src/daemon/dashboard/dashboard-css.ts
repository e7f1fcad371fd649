/**
 * The dashboard's stylesheet (served as /assets/dashboard.css: the Content-Security-Policy allows no
 * inline style). Plain CSS, system fonts, nothing fetched from elsewhere. Colours keep text at a
 * contrast of at least 4.5:1; the chart series are told apart by their legend and tables too.
 */
export const DASHBOARD_CSS = `
:root { --fg: #1b1f24; --muted: #57606a; --bg: #f6f8fa; --card: #fff; --line: #d0d7de; --link: #0550ae; --focus: #0969da;
  --ok-fg: #116329; --ok-bg: #dafbe1; --warn-fg: #7d4e00; --warn-bg: #fff8c5; --bad-fg: #a40e26; --bad-bg: #ffebe9; --info-fg: #0a3069; --info-bg: #ddf4ff; }
* { box-sizing: border-box; }
body { margin: 0; font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", sans-serif; color: var(--fg); background: var(--bg); }
a { color: var(--link); }
a:focus-visible, button:focus-visible, input:focus-visible, summary:focus-visible, main:focus-visible { outline: 3px solid var(--focus); outline-offset: 2px; }
code, pre, .location { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 0.9em; }
.skip { position: absolute; left: -999px; top: 0; background: var(--card); padding: 0.5em 1em; }
.skip:focus { left: 0.5em; z-index: 10; }
header.top { display: flex; flex-wrap: wrap; align-items: center; gap: 0.5em 1.5em; padding: 0.6em 1.5em; background: #24292f; color: #fff; }
header.top .brand { font-weight: 700; letter-spacing: 0.02em; }
header.top nav ul { display: flex; gap: 1em; list-style: none; margin: 0; padding: 0; }
header.top nav a { color: #fff; text-decoration: none; padding: 0.2em 0.1em; }
header.top nav a[aria-current="page"] { border-bottom: 2px solid #fff; font-weight: 600; }
header.top nav a:focus-visible { outline-color: #fff; }
.readiness { margin: 0 0 0 auto; }
.readiness .reason { color: #eaeef2; }
main { max-width: 1200px; margin: 0 auto; padding: 1em 1.5em 2em; }
h1 { font-size: 1.5em; margin: 0.4em 0 0.6em; }
h2 { font-size: 1.15em; margin: 0 0 0.6em; }
.card { background: var(--card); border: 1px solid var(--line); border-radius: 6px; padding: 1em 1.2em; margin: 0 0 1em; overflow-x: auto; }
.card.problem { border-color: var(--bad-fg); }
.facts { display: grid; grid-template-columns: max-content 1fr; gap: 0.3em 1em; margin: 0 0 1em; }
.facts dt { font-weight: 600; }
.facts dd { margin: 0; }
.badge { display: inline-block; padding: 0 0.5em; border-radius: 1em; font-size: 0.85em; font-weight: 600; white-space: nowrap; }
.badge.ok { color: var(--ok-fg); background: var(--ok-bg); }
.badge.warn { color: var(--warn-fg); background: var(--warn-bg); }
.badge.bad { color: var(--bad-fg); background: var(--bad-bg); }
.badge.info { color: var(--info-fg); background: var(--info-bg); }
.muted, .empty { color: var(--muted); }
.message { overflow-wrap: anywhere; }
.name { font-weight: 600; unicode-bidi: isolate; }
.problem { color: var(--bad-fg); }
.daemon-line { list-style: none; padding: 0; margin: 0 0 1em; }
.daemon-line li { margin: 0.2em 0; }
table.data { border-collapse: collapse; width: 100%; margin: 0.5em 0; }
table.data caption { text-align: left; font-weight: 600; padding: 0.3em 0; }
table.data th, table.data td { text-align: left; vertical-align: top; padding: 0.3em 0.6em; border-bottom: 1px solid var(--line); }
table.data thead th { background: var(--bg); font-weight: 600; }
table.data th[scope="row"] { font-weight: normal; }
table.resources td .count { color: var(--muted); }
table.resources .why { display: block; color: var(--muted); font-size: 0.85em; overflow-wrap: anywhere; }
tr.error td { color: var(--bad-fg); }
.fail { color: var(--bad-fg); font-weight: 600; }
form.filter { display: flex; flex-wrap: wrap; gap: 0.5em; align-items: center; margin: 0 0 0.5em; }
form.filter input[type="search"] { min-width: 22em; padding: 0.35em 0.5em; border: 1px solid var(--muted); border-radius: 4px; font: inherit; }
form.filter button { padding: 0.35em 0.9em; font: inherit; border: 1px solid var(--muted); border-radius: 4px; background: var(--card); color: var(--fg); cursor: pointer; }
.count-line { margin: 0.3em 0; color: var(--muted); }
.plan table { border-collapse: collapse; margin: 0.5em 0; }
.plan th, .plan td { border: 1px solid var(--line); padding: 0.3em 0.6em; text-align: left; vertical-align: top; }
.plan h3 { font-size: 1.05em; }
.plan h4 { font-size: 1em; margin: 1em 0 0.4em; }
.plan blockquote { margin: 0.5em 0; padding: 0.3em 1em; border-left: 4px solid var(--warn-fg); background: var(--warn-bg); }
.plan details { margin: 0.5em 0; }
.plan summary { cursor: pointer; font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 0.9em; }
pre { background: var(--bg); border: 1px solid var(--line); border-radius: 4px; padding: 0.6em 0.8em; overflow-x: auto; }
pre.diff .diff-add { color: var(--ok-fg); background: var(--ok-bg); display: inline-block; min-width: 100%; }
pre.diff .diff-del { color: var(--bad-fg); background: var(--bad-bg); display: inline-block; min-width: 100%; }
pre.drift-text { white-space: pre-wrap; }
ul.problems, ul.files { margin: 0.3em 0; padding-left: 1.2em; }
svg.chart { width: 100%; max-width: 760px; height: auto; display: block; }
svg.chart .grid { stroke: var(--line); stroke-width: 1; }
svg.chart .tick { fill: var(--muted); font-size: 11px; }
svg.chart .trend { fill: none; stroke: #8c959f; stroke-width: 1; }
svg.chart .dot.ok { fill: #1a7f37; } svg.chart .dot.warn { fill: #bf8700; } svg.chart .dot.bad { fill: #cf222e; } svg.chart .dot.info { fill: #0969da; }
.legend { display: flex; flex-wrap: wrap; gap: 0.3em 1.2em; list-style: none; padding: 0; margin: 0.3em 0 0.6em; font-size: 0.9em; }
.swatch { display: inline-block; width: 0.9em; height: 0.9em; margin-right: 0.35em; vertical-align: -0.1em; border-radius: 2px; }
.s-2xx { fill: #4c78a8; background: #4c78a8; } .s-3xx { fill: #9ecae9; background: #9ecae9; } .s-4xx { fill: #eeca3b; background: #eeca3b; }
.s-429 { fill: #f58518; background: #f58518; } .s-456 { fill: #b279a2; background: #b279a2; } .s-529 { fill: #e45756; background: #e45756; }
.s-5xx { fill: #7f2704; background: #7f2704; } .s-network { fill: #54575c; background: #54575c; }
footer { max-width: 1200px; margin: 0 auto; padding: 0 1.5em 2em; color: var(--muted); font-size: 0.9em; }
`;
