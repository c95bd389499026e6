import { chainCallId } from "../../core-api.js";
import { type Html, html } from "../../html/client/html.js";
import type { Known, ReportData, RunUpdate, StudioView } from "../../html/client/page-data.js";
import { panelHtml } from "../../html/client/panel-html.js";
import { childData, dataScript, pageOf, reportParts, runHeader, TIMELINE_WINDOW } from "../../html/report.js";
import { reportData } from "../../html/report-data.js";
import type { ChildRuns } from "../../trace/child-runs.js";
import type { RunTrace } from "../../trace/run-trace.js";
import { STUDIO_SCRIPTS, scriptAddress } from "./studio-scripts.js";
import { STUDIO_CSS } from "./studio-style.js";

/**
 * What the run page offers besides the report: with the run's tree as `childRunsOf` reads it (its
 * child runs, each a link to its page, and the calls and questions the tree waits on, by chained id).
 */
export interface RunPageOptions extends ChildRuns {
  readonly token: string;
  readonly storeLabel: string;
  readonly canDrive: boolean;
  readonly hasModel: boolean;
  /** The last failure of the run when the studio drove it. */
  readonly failure: string | undefined;
  /** For an agent tool's child run: the run that called it, and the call; its calls are decided from there. */
  readonly calledBy: { readonly runId: string; readonly callId: string } | null;
}

/** What the studio's bar shows, as data the page draws again on each update. */
export function studioView(trace: RunTrace, options: RunPageOptions): StudioView {
  const { calledBy } = options;
  return {
    canDrive: options.canDrive,
    canChat: trace.result !== null && options.canDrive && options.hasModel,
    failure: options.failure ?? null,
    calledBy,
    open: trace.result === null,
    ownWaiting:
      calledBy === null
        ? []
        : trace.waiting.map((call) => ({ id: chainCallId(calledBy.callId, call.id), name: call.name })),
    ownQuestions: calledBy === null ? [] : trace.questions.map((question) => chainCallId(calledBy.callId, question.id)),
  };
}

/** The run page: the report's parts with the studio's bar on top, kept live by the studio's script. */
export async function renderRunPage(
  trace: RunTrace,
  runId: string,
  options: RunPageOptions,
  data: ReportData = runData(trace, options, runId),
  version = "",
): Promise<string> {
  const label = `${options.storeLabel} · ${runId}`;
  const parts = await reportParts(trace, { runId, label }, options, { program: null, chartOpen: false, data });
  const panel = panelHtml(studioView(trace, options), parts.header.waiting, parts.header.questions);
  return pageOf({
    title: `agentloop studio · ${runId}`,
    style: parts.style + STUDIO_CSS,
    head: html`<meta name="studio-token" content="${options.token}">\n`,
    bodyAttributes: html` data-run="${runId}" data-version="${version}"`,
    body: html`<nav class="studio-bar" id="studio-panel">${panel}</nav>\n${parts.body}\n${dataScript(parts.data)}`,
    script: { src: scriptAddress(STUDIO_SCRIPTS.run) },
  });
}

/** The data a run's page draws from: one pass over its whole fold, so the studio keeps it with the page. */
export function runData(trace: RunTrace, options: RunPageOptions, runId: string): ReportData {
  // The page fetches each part's bytes from the blob route, once, instead of holding them.
  const blobBase = `/runs/${encodeURIComponent(runId)}/blobs/`;
  return reportData(trace, TIMELINE_WINDOW, options.waiting, options.questions, blobBase);
}

/** What changed in a run since the page's `known` data (`data` is the run's, as `runData` gives it), as JSON the page folds in. */
export function runUpdate(
  trace: RunTrace,
  runId: string,
  options: RunPageOptions,
  known: Known,
  data: ReportData = runData(trace, options, runId),
  version = "",
): RunUpdate {
  // Rows only ever grow; a page that has more than the run (its log was cut) gets every row again.
  const from = known.rows > data.rows.length ? { rows: 0, ids: 0, moves: 0, descriptions: 0 } : known;
  return {
    version,
    from,
    rows: data.rows.slice(from.rows),
    ids: data.ids.slice(from.ids),
    moves: data.moves.slice(from.moves),
    descriptions: data.descriptions.slice(from.descriptions),
    notes: data.notes,
    marks: data.marks,
    compactions: data.compactions,
    header: runHeader(runId, trace, options.waiting, options.questions),
    visits: Object.fromEntries(trace.visits),
    taken: Object.fromEntries(trace.taken),
    end: trace.state,
    children: childData(options.children, null),
    studio: studioView(trace, options),
  };
}

/** The page of a run whose log the reader refused: the reason, and the way back. */
export function renderRefusedPage(runId: string, reason: string): string {
  const body: Html = html`<nav class="studio-bar"><a href="/">all runs</a><strong>run ${runId} is refused</strong></nav>
<main class="studio-list"><p class="reason" id="refused">${reason}</p>
<p>The log cannot be read as an agentloop run, so it is not shown. 'agentloop repair' drops a torn last event.</p></main>`;
  return pageOf({
    title: `agentloop studio · ${runId} refused`,
    style: STUDIO_CSS,
    bodyAttributes: html` data-ready="true"`,
    body,
    script: "",
  });
}
