import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { messageOf } from "../cli-error.js";
import { withTreePauses } from "../trace/run-status.js";
import { renderComparePage } from "./compare-page.js";
import { renderListPage } from "./list-page.js";
import { PageCache } from "./page-cache.js";
import { type RunPageOptions, renderRefusedPage, renderRunPage } from "./run-page.js";
import { ActionError } from "./studio-actions.js";
import { allowed, readToken, sameToken, TOKEN_COOKIE } from "./studio-auth.js";
import { runIdOf, type StudioContext, sendJson, traceOf, treeOf, watchedRun } from "./studio-context.js";
import { postAction } from "./studio-posts.js";
import type { RunRow } from "./watched-run.js";

/** The studio's HTTP server (`node:http`): pages, the runs as JSON, server-sent events, and the actions. */
export function createStudioServer(context: StudioContext): Server {
  const pages = new PageCache();
  return createServer((request, response) => {
    handle(context, pages, request, response).catch((error: unknown) => {
      const status = error instanceof ActionError ? error.status : 500;
      if (!response.headersSent) sendJson(response, status, { error: messageOf(error) });
      else response.end();
    });
  });
}

async function handle(
  context: StudioContext,
  pages: PageCache,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<void> {
  const url = new URL(request.url ?? "/", "http://studio.invalid");
  if (!allowed(request, url, context.token, context.hosts)) {
    sendJson(response, 403, { error: "open the studio with the URL it printed at start (it holds the token)" });
    return;
  }
  if (request.method === "POST") return postAction(context, request, response, url.pathname);
  if (request.method !== "GET") return sendJson(response, 405, { error: `${request.method} is not served` });
  if (sameToken(url.searchParams.get("token") ?? undefined, context.token)) {
    // The printed URL: keep the token in a cookie the browser sends only to this origin, and drop it from the address.
    const cookie = `${TOKEN_COOKIE}=${readToken(request, url)}; HttpOnly; SameSite=Strict; Path=/`;
    url.searchParams.delete("token");
    response.writeHead(303, { location: `${url.pathname}${url.search}`, "set-cookie": cookie });
    response.end();
    return;
  }
  const [, first = "", second, ...rest] = url.pathname.split("/");
  if (url.pathname === "/")
    return sendHtml(response, renderListPage(context.storeLabel, context.token, canStart(context)));
  if (url.pathname === "/api/runs") return sendJson(response, 200, runRows(context));
  if (url.pathname === "/events") return streamEvents(context, request, response);
  if (first === "runs" && second !== undefined && rest.length === 0) {
    const runId = runIdOf(decodeURIComponent(second));
    const run = watchedRun(context, runId);
    run?.fold();
    const refused = run?.refused;
    if (refused) return sendHtml(response, renderRefusedPage(runId, refused), 409);
    const options = await runPageOptions(context, runId);
    const waits = options.waiting.map((call) => call.id).join(" ");
    const children = options.children.map((child) => `${child.runId}:${child.status}:${child.steps}`).join(" ");
    const key = `${runId}\n${run?.length}\n${options.failure}\n${waits}\n${children}`;
    const page = await pages.get(key, () => renderRunPage(traceOf(context, runId), runId, options));
    return sendHtml(response, page);
  }
  if (url.pathname === "/compare") {
    const ids = [runIdOf(url.searchParams.get("a") ?? ""), runIdOf(url.searchParams.get("b") ?? "")] as const;
    // The comparison does not follow the runs: it is drawn from the store as it is now, not from the
    // watcher's last look, which may have caught a log (a fork just made) half written.
    context.watcher.poke();
    return sendHtml(response, renderComparePage(ids, [traceOf(context, ids[0]), traceOf(context, ids[1])]));
  }
  sendJson(response, 404, { error: `nothing at ${url.pathname}` });
}

function canStart(context: StudioContext): boolean {
  return context.actions.canDrive && context.actions.hasModel;
}

function runRows(context: StudioContext): RunRow[] {
  const rows = context.watcher.runs
    .all()
    .map((run) => run.row())
    .sort((a, b) => b.startedAt.localeCompare(a.startedAt) || a.runId.localeCompare(b.runId));
  return withTreePauses(rows, (row) => row.calledBy?.runId);
}

async function runPageOptions(context: StudioContext, runId: string): Promise<RunPageOptions> {
  const { children, waiting } = await treeOf(context, runId, traceOf(context, runId));
  return {
    token: context.token,
    storeLabel: context.storeLabel,
    canDrive: context.actions.canDrive,
    hasModel: context.actions.hasModel,
    failure: context.actions.failures.get(runId),
    waiting,
    calledBy: watchedRun(context, runId)?.calledBy ?? null,
    children,
  };
}

/** Server-sent events: the run id each time a run of the store changes, and (`delta`) the text a run the studio drives streams. */
function streamEvents(context: StudioContext, request: IncomingMessage, response: ServerResponse): void {
  response.writeHead(200, {
    "content-type": "text/event-stream",
    "cache-control": "no-store",
    connection: "keep-alive",
  });
  response.write(": watching\n\n");
  const stop = context.watcher.runs.listen((runId) => response.write(`data: ${runId}\n\n`));
  const delta = (runId: string, text: string) =>
    response.write(`event: delta\ndata: ${JSON.stringify({ runId, text })}\n\n`);
  context.actions.deltas.add(delta);
  request.on("close", () => {
    stop();
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
