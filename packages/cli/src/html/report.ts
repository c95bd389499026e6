import { stateName } from "../chart/statechart.js";
import type { RunTrace } from "../trace/run-trace.js";
import { escapeHtml, scriptJson } from "./escape.js";
import { REPORT_JS } from "./report-script.js";
import { REPORT_CSS } from "./report-style.js";
import { renderChartSvg } from "./svg-chart.js";
import { renderTimeline } from "./timeline-html.js";

/**
 * One self-contained HTML page for a run: the statechart drawn as inline SVG with the run's path
 * marked, and the timeline. Styles and script are inline; nothing is fetched, so it works offline.
 */
export function renderReport(trace: RunTrace, log: { readonly runId: string; readonly label: string }): string {
  const { result } = trace;
  const status = result?.status ?? "unfinished";
  const steps = result?.steps ?? trace.context.steps;
  const tokens = result?.tokens ?? trace.context.tokens;
  const where = result === null ? ` · in ${stateName(trace.chart, trace.state)}` : "";
  const states = trace.entries.flatMap((entry) => entry.moves.map((move) => stateName(trace.chart, move.state)));
  // A targetless move stays in its state: the path names each state once per stay.
  const path = states.filter((state, index) => state !== states[index - 1]);
  const svg = renderChartSvg(trace.chart, { visits: trace.visits, taken: trace.taken, end: trace.state });
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>agentloop run ${escapeHtml(log.runId)}</title>
<style>${REPORT_CSS}</style>
</head>
<body>
<header>
<h1>Run <code>${escapeHtml(log.runId)}</code></h1>
<div class="outcome status-${escapeHtml(status)}" id="outcome">${escapeHtml(`${status} · ${steps} steps · ${tokens} tokens${where}`)}</div>
<p class="task"><strong>Task</strong> ${escapeHtml(trace.settings.task)}</p>
<p class="answer"><strong>Answer</strong> ${escapeHtml(result?.answer ?? "(none)")}</p>
</header>
<section class="chart-section">
<h2>Statechart of <code>${escapeHtml(trace.chart.id)}</code>, with the path this run took</h2>
<div class="legend"><span><i style="background:#dbeafe;border:1px solid #1d4ed8"></i>entered (×times)</span><span><i style="background:#fde68a;border:1px solid #b45309"></i>where the run ended</span><span><i style="background:#c2410c"></i>transition taken (×times)</span><span>dashed: eventless (guarded) transition</span><span>double border: final state</span></div>
<div class="card">${svg}
<div class="player"><label for="step">step through the run</label><input type="range" id="step" min="0" value="0"><span id="step-label"></span></div>
<p class="path" id="path"></p>
</div>
</section>
<section>
<h2>Timeline</h2>
${renderTimeline(trace)}
</section>
<footer>agentloop · replayed from ${escapeHtml(log.label)} through the machine, calling no model and running no tool</footer>
<script type="application/json" id="run-data">${scriptJson({ runId: log.runId, path })}</script>
<script>${REPORT_JS}</script>
</body>
</html>
`;
}
