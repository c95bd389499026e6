import { stateName } from "../chart/statechart.js";
import { contentText, type PendingQuestion } from "../core-api.js";
import { shellQuote } from "../output/hints.js";
import { type ChildRun, type ChildRuns, withoutChildren } from "../trace/child-runs.js";
import { traceStatus } from "../trace/run-status.js";
import type { RunTrace } from "../trace/run-trace.js";
import { childRunsHtml } from "./client/children-html.js";
import { headerHtml } from "./client/header-html.js";
import { type Html, html, raw } from "./client/html.js";
import type { ChildData, ReportData, RunHeader, WaitingCall } from "./client/page-data.js";
import { clientBundle } from "./client-bundle.js";
import { scriptJson } from "./escape.js";
import { memoryPanelHtml } from "./memory-html.js";
import { reportData } from "./report-data.js";
import { REPORT_CSS } from "./report-style.js";
import { renderChartSvg } from "./svg-chart.js";

/** Timeline entries the page shows at once; the slider and the buttons move this window. */
export const TIMELINE_WINDOW = 60;

/** A run's page in parts: the studio adds its own to each before putting them together. */
export interface ReportParts {
  readonly title: string;
  /** The stylesheet. */
  readonly style: string;
  /** The page's content, without the data and the script. */
  readonly body: Html;
  /** The data the script draws from, for its JSON script element. */
  readonly data: ReportData;
  readonly header: RunHeader;
}

/** What the run's header says, from its fold and the calls its tree waits on. */
export function runHeader(
  runId: string,
  trace: RunTrace,
  waiting: readonly WaitingCall[],
  questions: readonly PendingQuestion[] = trace.questions,
  answerCommand: string | null = null,
): RunHeader {
  const { result } = trace;
  const status = traceStatus(trace, waiting, questions);
  const where = result === null ? ` · in ${stateName(trace.chart, trace.state)}` : "";
  const turns = trace.turns > 1 ? ` · ${trace.turns} turns` : "";
  const events = trace.entries.length;
  const refused =
    result?.status === "invalid_output"
      ? trace.entries.findLast(({ event }) => event.type === "output.checked" && !event.valid)?.event
      : undefined;
  const guardrail = result?.guardrail;
  return {
    runId,
    status,
    outcome: `${status} · ${trace.steps} steps · ${trace.tokens} tokens · ${events} events${turns}${where}`,
    task: contentText(trace.settings.task),
    answer: result?.answer ?? null,
    ...(result?.output !== undefined ? { output: JSON.stringify(result.output) } : {}),
    ...(refused?.type === "output.checked" && !refused.valid ? { outputProblem: refused.problem } : {}),
    ...(guardrail !== undefined
      ? { tripped: `${guardrail.stage} guardrail ${guardrail.name}: ${guardrail.reason}` }
      : {}),
    waiting: waiting.map((call) => ({ id: call.id, name: call.name })),
    questions: questions.map((question) => ({
      id: question.id,
      question: question.question,
      shape: question.schema === undefined ? null : JSON.stringify(question.schema),
    })),
    answerCommand: questions.length === 0 ? null : answerCommand,
  };
}

/** The child runs as the page lists them: with `program`, each names the command that writes its report; without, it is a link. */
export function childData(children: readonly ChildRun[], program: string | null): ChildData[] {
  return children.map((child) => ({
    callId: child.callId,
    name: child.name,
    runId: child.runId,
    status: child.status,
    steps: child.steps,
    tokens: child.tokens,
    task: child.task,
    answer: child.answer,
    command: program === null ? null : `${program} show ${child.label} --html ${child.runId}.html`,
    children: childData(child.children, program),
  }));
}

/**
 * A run's page in parts: the header, the slider through the run, the conversation beside what
 * the model was shown for the selected event, the child runs, the statechart with the path the
 * run took (open with `chartOpen`, else folded away), and the timeline of events with the moves
 * each made. The script draws the conversation and the timeline from the data, a window at a
 * time, so that a run of any length opens fast.
 */
export async function reportParts(
  trace: RunTrace,
  log: { readonly runId: string; readonly label: string },
  tree: ChildRuns,
  options: { readonly program: string | null; readonly chartOpen: boolean; readonly data?: ReportData },
): Promise<ReportParts> {
  const { children, waiting, questions } = tree;
  const answer =
    options.program === null
      ? null
      : [
          options.program,
          ...["resume", log.label, "--tools", "<module>", "--model", "<provider:name>"].map(shellQuote),
          ...questions.flatMap((question) => ["--answer", shellQuote(`${question.id}=<answer>`)]),
        ].join(" ");
  const header = runHeader(log.runId, trace, waiting, questions, answer);
  const svg = await renderChartSvg(trace.chart, { visits: trace.visits, taken: trace.taken, end: trace.state });
  const data = options.data ?? reportData(trace, TIMELINE_WINDOW, waiting, questions);
  const events = data.rows.length;
  const body = html`<header id="header">${headerHtml(header)}</header>
<div class="player" id="player"><label for="step">event</label><div class="track"><div class="marks" id="marks"></div><input type="range" id="step" min="0" max="${Math.max(0, events - 1)}" value="${Math.max(0, events - 1)}"></div><span id="step-label"></span></div>
<div class="pager"><button type="button" id="earlier">◀ earlier</button><span id="shown"></span><button type="button" id="later">later ▶</button></div>
<main class="run-columns">
<section class="conversation-section"><h2>Conversation</h2><ol class="conversation" id="conversation"></ol></section>
<section class="prompt-section"><h2>What the model was shown</h2><p id="prompt-note"></p><ol class="prompt" id="prompt"></ol></section>
</main>
<div id="children-place">${childRunsHtml(childData(children, options.program))}</div>
${memoryPanelHtml(trace)}
<details class="chart-section" id="chart"${raw(options.chartOpen ? " open" : "")}>
<summary><h2>Statechart of <code>${trace.chart.id}</code>, with the path this run took</h2></summary>
<div class="legend"><span><i class="key visited"></i>entered (×times)</span><span><i class="key end"></i>where the run ended</span><span><i class="key taken"></i>transition taken (×times)</span><span><i class="key focus"></i>what the selected event touched</span><span>dashed: eventless (guarded) transition</span><span>double border: final state</span></div>
<div class="card"><div class="chart-scroll" id="chart-place">${raw(svg)}</div></div>
</details>
<section class="timeline-section">
<h2>Timeline <span class="count" id="events-count">${events} events</span></h2>
<ol class="timeline" id="timeline"></ol>
<noscript>The page needs JavaScript; 'agentloop show' prints the run as text.</noscript>
</section>
<footer>agentloop · replayed from ${log.label} through the machine, calling no model and running no tool</footer>`;
  return { title: `agentloop run ${log.runId}`, style: REPORT_CSS, body, data, header };
}

/** The data's JSON script element. */
export function dataScript(data: ReportData): Html {
  return raw(`<script type="application/json" id="run-data">${scriptJson(data)}</script>`);
}

/** A page from its parts: one file, style and script inline. */
export function pageOf(parts: {
  readonly title: string;
  readonly style: string;
  readonly head?: Html;
  readonly bodyAttributes?: Html;
  readonly body: Html;
  /** The script, inline; or (the studio's pages) the address it is served at. */
  readonly script: string | { readonly src: string };
}): string {
  const script =
    typeof parts.script === "string"
      ? html`<script>${raw(parts.script)}</script>`
      : html`<script defer src="${parts.script.src}"></script>`;
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${parts.title}</title>
<style>${raw(parts.style)}</style>
${parts.head ?? null}</head>
<body${parts.bodyAttributes ?? null}>
${parts.body}
${script}
</body>
</html>
`.text;
}

/**
 * One self-contained HTML page for a run (`show --html`): its parts, the data, and the report's
 * script inline; nothing is fetched, so it works offline. The chart is open.
 */
export async function renderReport(
  trace: RunTrace,
  log: { readonly runId: string; readonly label: string },
  tree: ChildRuns = withoutChildren(trace),
  program = "agentloop",
): Promise<string> {
  const parts = await reportParts(trace, log, tree, { program, chartOpen: true });
  return pageOf({
    ...parts,
    body: html`${parts.body}\n${dataScript(parts.data)}`,
    script: clientBundle("html/client/report-main.js"),
  });
}
