import { type Html, html } from "../../html/client/html.js";
import { byId } from "../../html/client/report-view.js";
import { post, studioEvents } from "./studio-fetch.js";

/** A row of `GET /api/runs` (the server's `RunRow`). */
interface Row {
  readonly runId: string;
  readonly status: string;
  readonly task: string;
  readonly steps: number;
  readonly tokens: number;
  readonly cost: number | null;
  readonly startedAt: string;
  readonly durationMs: number;
  readonly parent: string | null;
  readonly calledBy: { readonly runId: string; readonly callId: string } | null;
  readonly refused: string | null;
}

const link = (id: string): Html => html`<a href="/runs/${encodeURIComponent(id)}">${id}</a>`;
const seconds = (ms: number): string => (ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(1)} s`);
/** USD as `list` prints it: cents for a dollar or more, else four significant digits; "-" when unknown. */
const usd = (cost: number | null): string => {
  if (cost === null) return "-";
  if (cost >= 1) return `$${cost.toFixed(2)}`;
  return cost === 0 ? "$0" : `$${Number(cost.toPrecision(4))}`;
};
const links = (ids: readonly string[]): Html =>
  html`${ids.map((id, index) => html`${index > 0 ? ", " : ""}${link(id)}`)}`;

const body = byId<HTMLTableSectionElement>("runs");
const filter = byId<HTMLInputElement>("filter");
const status = byId<HTMLSelectElement>("status");
let runs: Row[] = [];
/** Runs the store holds, and where the next page starts (`null`: every run is shown). */
let total = 0;
let next: string | null = null;
/** Runs asked for per page, and how many pages are shown: a store of any size opens with one page. */
const PAGE = 200;
let pages = 1;

function render(): void {
  const query = filter.value.toLowerCase();
  const shown = runs.filter(
    (r) =>
      (status.value === "" || r.status === status.value) &&
      (query === "" || `${r.runId} ${r.task}`.toLowerCase().includes(query)),
  );
  const forks = new Map<string, string[]>();
  const called = new Map<string, string[]>();
  const add = (map: Map<string, string[]>, key: string, id: string) => map.set(key, [...(map.get(key) ?? []), id]);
  for (const r of runs) {
    if (r.parent) add(forks, r.parent, r.runId);
    if (r.calledBy) add(called, r.calledBy.runId, r.runId);
  }
  const lineage = (r: Row): Html => {
    const parts: Html[] = [];
    if (r.parent) parts.push(html`fork of ${link(r.parent)}`);
    if (r.calledBy) parts.push(html`child of ${link(r.calledBy.runId)} (call ${r.calledBy.callId})`);
    const own = forks.get(r.runId) ?? [];
    if (own.length > 0) parts.push(html`forks: ${links(own)}`);
    const children = called.get(r.runId) ?? [];
    if (children.length > 0) parts.push(html`children: ${links(children)}`);
    return html`${parts.map((part, index) => html`${index > 0 ? " · " : ""}${part}`)}`;
  };
  body.innerHTML = html`${shown.map(
    (r) =>
      html`<tr data-run="${r.runId}"><td><input type="checkbox" class="pick" value="${r.runId}" aria-label="pick ${r.runId} for comparison"></td><td class="id">${link(r.runId)}</td><td><span class="badge ${r.status}">${r.status}</span>${
        r.refused ? html`<div class="reason">${r.refused}</div>` : null
      }</td><td class="task">${r.task}</td><td class="num steps" data-label="steps">${r.steps}</td><td class="num tokens" data-label="tokens">${r.tokens}</td><td class="num cost${r.cost === null ? " unknown" : ""}" data-label="cost">${usd(r.cost)}</td><td class="when">${r.startedAt.slice(0, 19).replace("T", " ")}</td><td class="num duration" data-label="took">${seconds(r.durationMs)}</td><td class="lineage">${lineage(r)}</td></tr>`,
  )}`.text;
  // The cost column shows in a store that holds a priced run, as in `agentloop list`.
  byId("runs-table").classList.toggle(
    "priced",
    runs.some((r) => r.cost !== null),
  );
  byId("count").textContent =
    runs.length === total
      ? `${shown.length} of ${total} runs`
      : `${shown.length} of the newest ${runs.length} of ${total} runs`;
  byId("more").hidden = next === null;
}

/** A load is waited for at most once at a time: changes heard meanwhile are in it. */
let pending = false;
async function load(): Promise<void> {
  const loaded: Row[] = [];
  let after: string | null = null;
  for (let page = 0; page < pages; page++) {
    const query: string = after === null ? "" : `&after=${encodeURIComponent(after)}`;
    const answer = (await (await fetch(`/api/runs?limit=${PAGE}${query}`)).json()) as {
      runs: Row[];
      total: number;
      next: string | null;
    };
    loaded.push(...answer.runs);
    total = answer.total;
    after = answer.next;
    if (after === null) break;
  }
  runs = loaded;
  next = after;
  render();
  document.body.dataset.ready = "true";
}
const later = (ms: number) => {
  if (pending) return;
  pending = true;
  setTimeout(() => {
    pending = false;
    void load();
  }, ms);
};

filter.addEventListener("input", render);
byId("more").addEventListener("click", () => {
  pages++;
  void load();
});
status.addEventListener("change", render);
byId("compare").addEventListener("click", () => {
  const picked = [...document.querySelectorAll<HTMLInputElement>(".pick:checked")].map((box) => box.value);
  if (picked.length === 2) {
    location.href = `/compare?a=${encodeURIComponent(picked[0] ?? "")}&b=${encodeURIComponent(picked[1] ?? "")}`;
  }
});
document.getElementById("start")?.addEventListener("submit", (event) => {
  event.preventDefault();
  const task = byId<HTMLInputElement>("task").value;
  void post("/api/runs", { task }, (text) => {
    byId("failure").textContent = text;
  }).then((answer) => {
    if (answer !== null) location.href = `/runs/${encodeURIComponent(answer.runId)}`;
  });
});
// The first load waits for the stream: nothing written in between is missed.
studioEvents({ open: () => later(0), run: () => later(100) });
