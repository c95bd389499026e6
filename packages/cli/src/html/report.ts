import { stateName } from "../chart/statechart.js";
import { type ChildRun, treeWaiting } from "../trace/child-runs.js";
import { traceStatus } from "../trace/run-status.js";
import type { RunTrace } from "../trace/run-trace.js";
import { childRunsHtml } from "./child-runs-html.js";
import { escapeHtml, scriptJson } from "./escape.js";
import { reportData } from "./report-data.js";
import { REPORT_JS } from "./report-script.js";
import { REPORT_CSS } from "./report-style.js";
import { renderChartSvg } from "./svg-chart.js";

/**
 * What the checks of the run's end said, for its header: the checked output's value, the
 * problem of the answer the output check refused last, and the guardrail that tripped, with why.
 */
function checksHtml(trace: RunTrace): string {
  const { result } = trace;
  if (result === null) return "";
  const lines: string[] = [];
  if (result.output !== undefined) {
    lines.push(`<p class="output" id="output">${label("Output", JSON.stringify(result.output))}</p>`);
  }
  if (result.status === "invalid_output") {
    const refused = trace.entries.findLast(({ event }) => event.type === "output.checked" && !event.valid)?.event;
    if (refused?.type === "output.checked" && !refused.valid) {
      lines.push(`<p class="output" id="output-problem">${label("Output refused", refused.problem)}</p>`);
    }
  }
  if (result.guardrail !== undefined) {
    const { stage, name, reason } = result.guardrail;
    lines.push(`<p class="tripped" id="tripped">${label("Tripped", `${stage} guardrail ${name}: ${reason}`)}</p>`);
  }
  return lines.map((line) => `${line}\n`).join("");
}

const label = (name: string, text: string): string => `<strong>${name}</strong> ${escapeHtml(text)}`;

/** Timeline entries the page shows at once; the slider and the buttons move this window. */
export const TIMELINE_WINDOW = 60;

/**
 * One self-contained HTML page for a run: the statechart drawn as inline SVG with the run's path
 * marked, a slider through the run that lights the states and transitions of each event, and the
 * timeline, shown a window at a time so that a run of any length opens fast. Pauses for a
 * decision, interruptions and long gaps are marked on the timeline and on the slider's track.
 * The child runs of agent tool calls are listed under their calls. Styles and script are inline;
 * nothing is fetched, so it works offline.
 */
export async function renderReport(
  trace: RunTrace,
  log: { readonly runId: string; readonly label: string },
  children: readonly ChildRun[] = [],
  program?: string,
): Promise<string> {
  const { result } = trace;
  const waiting = treeWaiting(trace, children);
  const status = traceStatus(trace, waiting);
  const where = result === null ? ` · in ${stateName(trace.chart, trace.state)}` : "";
  const waits =
    waiting.length === 0
      ? ""
      : `<p class="waits"><strong>Waiting</strong> for a decision on ${waiting.map((call) => `<code>${escapeHtml(call.id)}</code> (${escapeHtml(call.name)})`).join(", ")}</p>`;
  const svg = await renderChartSvg(trace.chart, { visits: trace.visits, taken: trace.taken, end: trace.state });
  const data = reportData(trace, TIMELINE_WINDOW, waiting);
  const events = data.rows.length;
  const turns = trace.turns > 1 ? ` · ${trace.turns} turns` : "";
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
<div class="outcome status-${escapeHtml(status)}" id="outcome">${escapeHtml(`${status} · ${trace.steps} steps · ${trace.tokens} tokens · ${events} events${turns}${where}`)}</div>
<p class="task"><strong>Task</strong> ${escapeHtml(trace.settings.task)}</p>
<p class="answer"><strong>Answer</strong> ${escapeHtml(result?.answer ?? "(none)")}</p>
${checksHtml(trace)}${waits}
</header>
<section class="chart-section">
<h2>Statechart of <code>${escapeHtml(trace.chart.id)}</code>, with the path this run took</h2>
<div class="legend"><span><i class="key visited"></i>entered (×times)</span><span><i class="key end"></i>where the run ended</span><span><i class="key taken"></i>transition taken (×times)</span><span><i class="key focus"></i>what the selected event touched</span><span>dashed: eventless (guarded) transition</span><span>double border: final state</span></div>
<div class="card"><div class="chart-scroll">${svg}</div>
<div class="player"><label for="step">event</label><div class="track"><div class="marks" id="marks"></div><input type="range" id="step" min="0" max="${Math.max(0, events - 1)}" value="0"></div><span id="step-label"></span></div>
</div>
</section>
${childRunsHtml(children, program)}
<section class="timeline-section">
<h2>Timeline <span class="count">${events} events</span></h2>
<div class="pager"><button type="button" id="earlier">◀ earlier</button><span id="shown"></span><button type="button" id="later">later ▶</button></div>
<ol class="timeline" id="timeline"></ol>
<noscript>The timeline needs JavaScript; 'agentloop show' prints it as text.</noscript>
</section>
<footer>agentloop · replayed from ${escapeHtml(log.label)} through the machine, calling no model and running no tool</footer>
<script type="application/json" id="run-data">${scriptJson(data)}</script>
<script>${REPORT_JS}</script>
</body>
</html>
`;
}
