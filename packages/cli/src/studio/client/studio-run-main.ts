import type { RunUpdate } from "../../html/client/page-data.js";
import { panelHtml } from "../../html/client/panel-html.js";
import { byId, pageData, ReportView } from "../../html/client/report-view.js";
import { post, studioEvents } from "./studio-fetch.js";

/**
 * The studio's run page: the report's view, kept live. On each change of the run the server
 * announces, the page asks for what it has not got yet (`GET /api/runs/<id>/update?rows=&ids=&moves=&descriptions=`)
 * and folds it in; the bar's buttons post to the server with the start's token.
 */
const view = new ReportView(pageData());
const runId = document.body.dataset.run ?? "";
const base = `/api/runs/${encodeURIComponent(runId)}`;
const failure = (text: string) => {
  byId("failure").textContent = text;
};

document.addEventListener("click", (event) => {
  const button = (event.target as Element).closest<HTMLElement>("[data-act]");
  if (button === null) return;
  const act = button.dataset.act;
  if (act === "decide") {
    void post(`${base}/decisions`, { callId: button.dataset.call, approved: button.dataset.approved === "1" }, failure);
  }
  if (act === "fork") {
    void post(`${base}/fork`, { keep: view.selected + 1 }, failure).then((answer) => {
      if (answer !== null) {
        location.href = `/compare?a=${encodeURIComponent(runId)}&b=${encodeURIComponent(answer.runId)}`;
      }
    });
  }
});
document.addEventListener("submit", (event) => {
  const form = event.target as HTMLFormElement;
  if (form.classList.contains("answer")) {
    event.preventDefault();
    const answer = form.querySelector<HTMLInputElement>("input[name=answer]")?.value ?? "";
    void post(`${base}/answers`, { callId: form.dataset.call, answer }, failure);
    return;
  }
  if (form.id !== "chat") return;
  event.preventDefault();
  void post(`${base}/messages`, { message: byId<HTMLInputElement>("message").value }, failure);
});

/** The bar as last drawn: it is drawn again only when it changes, so what the user types or focuses stays. */
let panelDrawn: string | null = null;
function drawPanel(next: string): void {
  if (next === panelDrawn) return;
  panelDrawn = next;
  const focused = document.activeElement?.id;
  const typed = document.querySelector<HTMLInputElement>("#message")?.value;
  const streaming = byId("streaming").textContent ?? "";
  byId("studio-panel").innerHTML = next;
  byId("streaming").textContent = streaming;
  const message = document.querySelector<HTMLInputElement>("#message");
  if (message !== null && typed !== undefined) message.value = typed;
  if (focused) document.getElementById(focused)?.focus();
}

let updating: Promise<void> | null = null;
let again = false;
async function update(): Promise<void> {
  const { rows, ids, moves, descriptions } = view.data;
  const version = encodeURIComponent(document.body.dataset.version ?? "");
  const answer = await fetch(
    `${base}/update?rows=${rows.length}&ids=${ids.length}&moves=${moves.length}&descriptions=${descriptions.length}&version=${version}`,
  );
  // 204: the page shows the run as it is; nothing to fold in.
  if (!answer.ok || answer.status === 204) return;
  const next = (await answer.json()) as RunUpdate;
  document.body.dataset.version = next.version;
  view.fold(next);
  drawPanel(panelHtml(next.studio, next.header.waiting, next.header.questions).text);
  // The text the model streamed is in the log once its reply is.
  if (next.rows.length > 0) byId("streaming").textContent = "";
  document.body.dataset.updates = String(Number(document.body.dataset.updates ?? 0) + 1);
  document.dispatchEvent(new Event("studio:updated"));
  // Drawn again after the update is counted: the chart is the slow part, and the rest is on the page.
  if (view.chartStale) {
    const chart = await fetch(`${base}/chart`);
    if (chart.ok) {
      view.replaceChart(((await chart.json()) as { chart: string }).chart);
      document.body.dataset.charts = String(Number(document.body.dataset.charts ?? 0) + 1);
    }
  }
}
/** One update at a time; a change heard during one is fetched once it is done. */
function changed(): void {
  if (updating !== null) {
    again = true;
    return;
  }
  updating = update()
    .catch(() => undefined)
    .finally(() => {
      updating = null;
      if (again) {
        again = false;
        changed();
      }
    });
}

studioEvents({
  // What changed between the page being made and the stream being open is fetched once it is.
  open: changed,
  run: (id) => {
    if (id === runId) changed();
  },
  delta: (id, text) => {
    if (id === runId) byId("streaming").textContent += text;
  },
});
