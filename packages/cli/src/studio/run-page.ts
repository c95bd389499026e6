import { chainCallId, type ToolCall } from "../core-api.js";
import { escapeHtml } from "../html/escape.js";
import { renderReport } from "../html/report.js";
import type { ChildRun } from "../trace/child-runs.js";
import type { RunTrace } from "../trace/run-trace.js";
import { PROMPT_JS } from "./prompt-script.js";
import { STUDIO_CSS } from "./studio-style.js";

/** What the run page offers besides the report. */
export interface RunPageOptions {
  readonly token: string;
  readonly storeLabel: string;
  readonly canDrive: boolean;
  readonly hasModel: boolean;
  /** The last failure of the run when the studio drove it. */
  readonly failure: string | undefined;
  /** The calls the run's tree waits on, with chained ids (its children's under their calls). */
  readonly waiting: readonly ToolCall[];
  /** For an agent tool's child run: the run that called it, and the call; its calls are decided from there. */
  readonly calledBy: { readonly runId: string; readonly callId: string } | null;
  /** The child runs of its agent tool calls, listed under their calls as `show --html` lists them. */
  readonly children: readonly ChildRun[];
}

/**
 * The page's script: it follows the run through the server's events, fetching the page again and
 * swapping its content in (then running the report's script on it); its buttons post to the
 * server with the start's token.
 */
const RUN_JS = `
(() => {
  const token = document.querySelector('meta[name="studio-token"]').content;
  const runId = document.body.dataset.run;
  const post = async (path, body) => {
    const res = await fetch(path, { method: "POST", headers: { "content-type": "application/json", "x-agentloop-token": token }, body: JSON.stringify(body) });
    const answer = await res.json();
    if (!res.ok) document.getElementById("failure").textContent = answer.error;
    return res.ok ? answer : null;
  };
  const base = "/api/runs/" + encodeURIComponent(runId);
  document.addEventListener("click", async (event) => {
    const button = event.target.closest("[data-act]");
    if (!button) return;
    const act = button.dataset.act;
    if (act === "decide") await post(base + "/decisions", { callId: button.dataset.call, approved: button.dataset.approved === "1" });
    if (act === "fork") {
      const keep = Number(document.getElementById("step").value) + 1;
      const answer = await post(base + "/fork", { keep });
      if (answer) location.href = "/compare?a=" + encodeURIComponent(runId) + "&b=" + encodeURIComponent(answer.runId);
    }
  });
  document.addEventListener("submit", async (event) => {
    if (event.target.id !== "chat") return;
    event.preventDefault();
    await post(base + "/messages", { message: document.getElementById("message").value });
  });
  let timer = null;
  async function refresh() {
    timer = null;
    const html = await (await fetch(location.pathname)).text();
    const next = new DOMParser().parseFromString(html, "text/html");
    // The event the user selected stays selected; a slider at the last event follows the run.
    const before = document.getElementById("step");
    const kept = before && before.value !== before.max ? before.value : null;
    for (const id of ["studio-panel", "report"]) document.getElementById(id).replaceWith(document.importNode(next.getElementById(id), true));
    new Function(document.getElementById("report-js").textContent)();
    const slider = document.getElementById("step");
    if (kept !== null && slider && Number(kept) <= Number(slider.max)) {
      slider.value = kept;
      slider.dispatchEvent(new Event("input", { bubbles: true }));
    }
    document.body.dataset.updates = String(Number(document.body.dataset.updates || 0) + 1);
    document.dispatchEvent(new Event("studio:updated"));
  }
  const source = new EventSource("/events");
  source.onmessage = (message) => {
    if (message.data === runId) timer = timer || setTimeout(refresh, 50);
  };
  source.addEventListener("delta", (message) => {
    const delta = JSON.parse(message.data);
    if (delta.runId === runId) document.getElementById("streaming").textContent += delta.text;
  });
  // What changed between the page being made and the stream being open is fetched once it is.
  source.onopen = () => { timer = timer || setTimeout(refresh, 50); };
})();
`;

const PROMPT_SECTION = `<section class="prompt-section"><h2>What the model was shown</h2><p id="prompt-note"></p><ol class="prompt" id="prompt"></ol></section>`;

/** The run page: the report of the run (chart, slider, timeline) with the studio's bar of actions, kept live. */
export async function renderRunPage(trace: RunTrace, runId: string, options: RunPageOptions): Promise<string> {
  const report = await renderReport(trace, { runId, label: `${options.storeLabel} · ${runId}` }, options.children);
  const bodyStart = report.indexOf("<body>") + "<body>".length;
  const scriptStart = report.lastIndexOf("<script>");
  const main = report.slice(bodyStart, scriptStart);
  const reportJs = report.slice(scriptStart + "<script>".length, report.lastIndexOf("</script>"));
  return `${report.slice(0, report.indexOf("</head>")).replace("</style>", `${STUDIO_CSS}</style>`)}
<meta name="studio-token" content="${escapeHtml(options.token)}">
</head>
<body data-run="${escapeHtml(runId)}">
${panelHtml(trace, options)}
<div id="report">${main.replace('<section class="timeline-section">', `${PROMPT_SECTION}<section class="timeline-section">`)}</div>
<script id="report-js">${reportJs}</script>
<script>${RUN_JS}</script>
<script>${PROMPT_JS}</script>
</body>
</html>
`;
}

function panelHtml(trace: RunTrace, options: RunPageOptions): string {
  const parts = [`<a href="/">all runs</a>`];
  const { calledBy } = options;
  if (calledBy !== null && trace.result === null && trace.waiting.length > 0) {
    // A child's calls are decided from the tree's root, which resumes the whole tree: resuming the child alone would leave its parent waiting.
    const parent = `<a href="/runs/${encodeURIComponent(calledBy.runId)}">${escapeHtml(calledBy.runId)}</a>`;
    const ids = trace.waiting.map(
      (call) => `${escapeHtml(call.name)} [${escapeHtml(chainCallId(calledBy.callId, call.id))}]`,
    );
    parts.push(`<span>${ids.join(", ")} waits: decide it from ${parent}, the run whose call started this one</span>`);
  }
  for (const call of calledBy === null ? options.waiting : []) {
    const id = escapeHtml(call.id);
    parts.push(
      options.canDrive
        ? `<span>${escapeHtml(call.name)} [${id}] waits: <button type="button" data-act="decide" data-call="${id}" data-approved="1">approve</button> <button type="button" data-act="decide" data-call="${id}" data-approved="0">deny</button></span>`
        : `<span>${escapeHtml(call.name)} [${id}] waits: start the studio with the run's --tools to decide here</span>`,
    );
  }
  parts.push(`<button type="button" data-act="fork">fork at the selected event</button>`);
  if (trace.result !== null && options.canDrive && options.hasModel) {
    parts.push(
      `<form id="chat"><input id="message" placeholder="your next message" required><button type="submit">send</button></form>`,
    );
  }
  const failure = options.failure === undefined ? "" : escapeHtml(options.failure);
  parts.push(
    `<span class="streaming" id="streaming"></span><span class="failure" id="failure">${failure}</span><span class="live">live</span>`,
  );
  return `<nav class="studio-bar" id="studio-panel">${parts.join("")}</nav>`;
}

/** The page of a run whose log the reader refused: the reason, and the way back. */
export function renderRefusedPage(runId: string, reason: string): string {
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>agentloop studio · ${escapeHtml(runId)} refused</title><style>${STUDIO_CSS}</style></head>
<body data-ready="true">
<nav class="studio-bar"><a href="/">all runs</a><strong>run ${escapeHtml(runId)} is refused</strong></nav>
<main class="studio-list"><p class="reason" id="refused">${escapeHtml(reason)}</p>
<p>The log cannot be read as an agentloop run, so it is not shown. 'agentloop repair' drops a torn last event.</p></main>
</body>
</html>
`;
}
