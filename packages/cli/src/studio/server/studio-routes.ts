import { createHash } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { type Principal, runsFor } from "../../core-api.js";
import type { Known } from "../../html/client/page-data.js";
import { clientBundle } from "../../html/client-bundle.js";
import type { ReportData } from "../../html/report-data.js";
import { renderChartSvg } from "../../html/svg-chart.js";
import { withTreePauses } from "../../trace/run-status.js";
import type { RunTrace } from "../../trace/run-trace.js";
import { renderComparePage } from "../pages/compare-page.js";
import { renderEvalCompare, renderEvalList, renderEvalReport } from "../pages/eval-pages.js";
import { renderListPage } from "../pages/list-page.js";
import { type RunPageOptions, renderRefusedPage, renderRunPage, runData, runUpdate } from "../pages/run-page.js";
import { STUDIO_SCRIPTS } from "../pages/studio-scripts.js";
import type { RunRow, WatchedRun } from "../watch/watched-run.js";
import type { EvalReports } from "./eval-reports.js";
import type { PageCache } from "./page-cache.js";
import { ActionError } from "./studio-actions.js";
import { mayView, runIdOf, type StudioContext, sendJson, traceOf, treeOf, watchedRun } from "./studio-context.js";

/** A GET request as a route gets it: what the server serves, the URL and the path's parameters. */
export interface Request {
  readonly context: StudioContext;
  readonly pages: PageCache;
  /** The data of the run pages made, by the same keys: a page's updates start from it. */
  readonly views: PageCache<ReportData>;
  readonly request: IncomingMessage;
  readonly response: ServerResponse;
  readonly url: URL;
  readonly params: Readonly<Record<string, string>>;
  /** Who is asking (`authorize`'s principal), `undefined` without `authorize`: what runs the request may see. */
  readonly principal: Principal | undefined;
}

/** A route: a path whose `:name` segments are parameters, and what answers it. */
export interface Route {
  readonly path: string;
  readonly serve: (request: Request) => void | Promise<void>;
}

/** Every page and read the studio serves, first match wins; the POSTs are `studio-posts.ts`'s. */
export const GET_ROUTES: readonly Route[] = [
  { path: "/", serve: listPage },
  { path: "/api/runs", serve: runsJson },
  { path: "/api/runs/:id/update", serve: runUpdateJson },
  { path: "/api/runs/:id/chart", serve: runChartJson },
  { path: "/events", serve: streamEvents },
  { path: "/scripts/:name", serve: script },
  { path: "/runs/:id", serve: runPage },
  { path: "/runs/:id/blobs/:sha", serve: runBlob },
  { path: "/compare", serve: comparePage },
  { path: "/evals", serve: ({ context, response }) => sendHtml(response, renderEvalList(evalsOf(context).all())) },
  { path: "/evals/compare", serve: evalCompare },
  {
    path: "/evals/:file",
    serve: ({ context, response, params }) =>
      sendHtml(response, renderEvalReport(evalsOf(context).get(params.file ?? ""))),
  },
];

function listPage({ context, response }: Request): void {
  const canStart = context.actions.canDrive && context.actions.hasModel;
  sendHtml(response, renderListPage(context.storeLabel, context.token, canStart, (context.evals ?? null) !== null));
}

async function runPage({ context, pages, views, response, params, principal }: Request): Promise<void> {
  const runId = runIdOf(params.id ?? "");
  const run = await watchedRun(context, runId, principal);
  run?.fold();
  const refused = run?.refused;
  if (refused) return sendHtml(response, renderRefusedPage(runId, refused), 409);
  const { trace, options, key } = await runState(context, runId, principal);
  const data = await views.get(key, () => runData(trace, options, runId));
  const page = await pages.get(key, () => renderRunPage(trace, runId, options, data, versionOf(key)));
  sendHtml(response, page);
}

/**
 * The bytes of one of a run's parts, by their SHA-256, read from the store and checked against it:
 * only a blob the run's log refers to, with the part's media type (an image shown inline, a file
 * as an attachment), kept by the browser (its address names its content).
 */
async function runBlob({ context, response, params, principal }: Request): Promise<void> {
  const runId = runIdOf(params.id ?? "");
  const sha256 = params.sha ?? "";
  const run = await watchedRun(context, runId, principal);
  const mediaType = run?.mediaTypeOf(sha256);
  if (run === undefined || mediaType === undefined) {
    throw new ActionError(404, `run '${runId}' refers to no blob '${sha256.slice(0, 80)}'`);
  }
  const bytes = run.blob(sha256);
  const image = mediaType.startsWith("image/") && mediaType !== "image/svg+xml";
  response.writeHead(200, {
    "content-type": image ? mediaType : "application/octet-stream",
    "content-length": bytes.byteLength,
    "content-disposition": image ? "inline" : "attachment",
    "x-content-type-options": "nosniff",
    "cache-control": "private, max-age=31536000, immutable",
  });
  response.end(bytes);
}

/**
 * A run as its page shows it, and the key that changes whenever that does (its length, its
 * failure, the calls its tree waits on, its children): the page and its data are kept by it.
 */
async function runState(
  context: StudioContext,
  runId: string,
  principal: Principal | undefined,
): Promise<{ readonly trace: RunTrace; readonly options: RunPageOptions; readonly key: string }> {
  const trace = await traceOf(context, runId, principal);
  const options = await runPageOptions(context, runId, trace, principal);
  const waits = [...options.waiting, ...options.questions].map((call) => call.id).join(" ");
  const children = options.children.map((child) => `${child.runId}:${child.status}:${child.steps}`).join(" ");
  const key = `${runId}\n${trace.entries.length}\n${options.failure}\n${waits}\n${children}`;
  return { trace, options, key };
}

/** A short name for what a run's page shows (its key's hash). */
function versionOf(key: string): string {
  return createHash("sha256").update(key).digest("hex").slice(0, 16);
}

/** What changed in a run since what the page has (`?rows=&ids=&moves=&descriptions=&version=`), as JSON the page folds in; 204 when its version is the run's. */
async function runUpdateJson({ context, views, response, params, url, principal }: Request): Promise<void> {
  const runId = runIdOf(params.id ?? "");
  const count = (name: string) => {
    const value = Number(url.searchParams.get(name) ?? "0");
    if (!Number.isSafeInteger(value) || value < 0) throw new ActionError(400, `${name} must be a whole number`);
    return value;
  };
  const known: Known = {
    rows: count("rows"),
    ids: count("ids"),
    moves: count("moves"),
    descriptions: count("descriptions"),
  };
  const { trace, options, key } = await runState(context, runId, principal);
  const version = versionOf(key);
  if (url.searchParams.get("version") === version) {
    // Nothing changed since what the page shows: it has nothing to fold in, nor to draw again.
    response.writeHead(204, { "cache-control": "no-store" });
    response.end();
    return;
  }
  const data = await views.get(key, () => runData(trace, options, runId));
  sendJson(response, 200, runUpdate(trace, runId, options, known, data, version));
}

/**
 * The run's chart drawn again with its counts (`{ "chart": "<svg …>" }`): a page asks for it when the
 * run entered a state its chart has no count for yet, which the chart's layout makes room for.
 */
async function runChartJson({ context, pages, response, params, principal }: Request): Promise<void> {
  const runId = runIdOf(params.id ?? "");
  const { trace, key } = await runState(context, runId, principal);
  const path = { visits: trace.visits, taken: trace.taken, end: trace.state };
  const chart = await pages.get(`chart\n${key}`, () => renderChartSvg(trace.chart, path));
  sendJson(response, 200, { chart });
}

/** A page's script: one of the studio's own, compiled with the package (its address holds a hash of it, so it may be kept). */
function script({ response, params }: Request): void {
  const known = Object.values(STUDIO_SCRIPTS).find((script) => script.name === params.name);
  if (known === undefined) throw new ActionError(404, `no script '${(params.name ?? "").slice(0, 200)}'`);
  response.writeHead(200, {
    "content-type": "text/javascript; charset=utf-8",
    "cache-control": "private, max-age=31536000, immutable",
  });
  response.end(clientBundle(known.entry));
}

async function comparePage({ context, response, url, principal }: Request): Promise<void> {
  const ids = [runIdOf(url.searchParams.get("a") ?? ""), runIdOf(url.searchParams.get("b") ?? "")] as const;
  // The comparison does not follow the runs: it is drawn from the store as it is now, not from the
  // watcher's last look, which may have caught a log (a fork just made) half written.
  await context.watcher.poke();
  const traces = [await traceOf(context, ids[0], principal), await traceOf(context, ids[1], principal)] as const;
  sendHtml(response, renderComparePage(ids, traces));
}

function evalCompare({ context, response, url }: Request): void {
  const evals = evalsOf(context);
  const before = evals.get(url.searchParams.get("a") ?? "");
  const after = evals.get(url.searchParams.get("b") ?? "");
  sendHtml(response, renderEvalCompare(before, after));
}

function evalsOf(context: StudioContext): EvalReports {
  if (context.evals === undefined || context.evals === null)
    throw new ActionError(404, "start the studio with --evals <directory> to show eval reports");
  return context.evals;
}

/**
 * The runs the request may see as rows, newest first: all of them (an array), or with `?limit=` a
 * page of them as `{ runs, total, next }`, `next` going as `?after=` for the page after it. A store
 * whose watcher pages (Postgres) reads only that page's runs, however many it keeps; with
 * `authorize`, its pages are cut from the principal's runs as the store lists them (`runsFor`).
 */
async function runsJson({ context, response, url, principal }: Request): Promise<void> {
  const limitText = url.searchParams.get("limit");
  const seen = (run: WatchedRun) => mayView(context, principal, run);
  if (limitText === null) return sendJson(response, 200, runRows(context.watcher.runs.all(), seen));
  const limit = Number(limitText);
  if (!Number.isSafeInteger(limit) || limit < 1 || limit > 1000) {
    throw new ActionError(400, "limit must be a whole number from 1 to 1000");
  }
  const after = url.searchParams.get("after");
  const { watcher } = context;
  if (watcher.page !== undefined && context.authorize === undefined) {
    const page = await watcher.page(limit, after);
    return sendJson(response, 200, { runs: runRows(page.runs, seen), total: page.total, next: page.next });
  }
  const start = after === null ? 0 : Number(after);
  if (!Number.isSafeInteger(start) || start < 0) throw new ActionError(400, "after must be the next of a page");
  const end = start + limit;
  if (watcher.page !== undefined) return sendJson(response, 200, await principalPage(context, principal, start, end));
  const rows = runRows(watcher.runs.all(), seen);
  sendJson(response, 200, {
    runs: rows.slice(start, end),
    total: rows.length,
    next: end < rows.length ? String(end) : null,
  });
}

/** The rows of the runs `seen` keeps, newest first; a run's tree pauses are read from all of `runs`, seen or not. */
function runRows(runs: readonly WatchedRun[], seen: (run: WatchedRun) => boolean): RunRow[] {
  const rows = runs
    .map((run) => run.row())
    .sort((a, b) => b.startedAt.localeCompare(a.startedAt) || a.runId.localeCompare(b.runId));
  const shown = new Set(runs.filter(seen).map((run) => run.runId));
  return withTreePauses(rows, (row) => row.calledBy?.runId).filter((row) => shown.has(row.runId));
}

/**
 * A page of a principal's runs in a store the watcher pages (Postgres): the runs the store lists
 * for the principal (`runsFor`), newest first, from `start` to `end`, read by the watcher.
 */
async function principalPage(
  context: StudioContext,
  principal: Principal | undefined,
  start: number,
  end: number,
): Promise<{ runs: RunRow[]; total: number; next: string | null }> {
  const summaries = (await runsFor(context.actions.store, principal)).sort(
    (a, b) => b.startedAt.localeCompare(a.startedAt) || b.runId.localeCompare(a.runId),
  );
  const runs: WatchedRun[] = [];
  for (const { runId } of summaries.slice(start, end)) {
    const run = await watchedRun(context, runId, principal);
    if (run !== undefined) runs.push(run);
  }
  const next = end < summaries.length ? String(end) : null;
  return { runs: runRows(runs, () => true), total: summaries.length, next };
}

async function runPageOptions(
  context: StudioContext,
  runId: string,
  trace: RunTrace,
  principal: Principal | undefined,
): Promise<RunPageOptions> {
  const { children, waiting, questions } = await treeOf(context, runId, trace);
  return {
    token: context.token,
    storeLabel: context.storeLabel,
    canDrive: context.actions.canDrive,
    hasModel: context.actions.hasModel,
    failure: context.actions.failures.get(runId),
    waiting,
    questions,
    calledBy: (await watchedRun(context, runId, principal))?.calledBy ?? null,
    children,
  };
}

/**
 * Server-sent events: the run id each time a run of the store changes, and (`delta`) the text a run
 * the studio drives streams; with `authorize`, of the principal's runs only (a run the watcher has
 * not read yet is read first, to know whose it is).
 */
function streamEvents({ context, request, response, principal }: Request): void {
  response.writeHead(200, {
    "content-type": "text/event-stream",
    "cache-control": "no-store",
    connection: "keep-alive",
  });
  response.write(": watching\n\n");
  const { watcher } = context;
  const seen = (runId: string) => {
    if (context.authorize === undefined) return true;
    const run = watcher.runs.get(runId);
    // Once read, the watcher tells of the run again.
    if (run === undefined) void watcher.load?.(runId).catch(() => undefined);
    return run !== undefined && mayView(context, principal, run);
  };
  const changed = (runId: string) => {
    if (seen(runId)) response.write(`data: ${runId}\n\n`);
  };
  const stop = watcher.runs.listen(changed);
  context.actions.failed.add(changed);
  const delta = (runId: string, text: string) => {
    if (seen(runId)) response.write(`event: delta\ndata: ${JSON.stringify({ runId, text })}\n\n`);
  };
  context.actions.deltas.add(delta);
  request.on("close", () => {
    stop();
    context.actions.failed.delete(changed);
    context.actions.deltas.delete(delta);
  });
}

function sendHtml(response: ServerResponse, html: string, status = 200): void {
  response.writeHead(status, {
    "content-type": "text/html; charset=utf-8",
    "cache-control": "no-store",
    "x-frame-options": "DENY",
  });
  response.end(html);
}
