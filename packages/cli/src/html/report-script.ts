/**
 * The report's script, inlined in the page. The page's data holds the run's events as compact
 * rows; the timeline shows a window of them, rendered from the data around the selected event,
 * so that a run of any length opens fast and holds few nodes. The slider selects an event: the
 * states and transitions it touched light up on the chart, the timeline moves to it. Clicking an
 * entry selects it. Marks on the slider's track show turns, pauses, interruptions and gaps. When
 * done it sets `data-ready` on the body.
 */
export const REPORT_JS = `
(() => {
  const data = JSON.parse(document.getElementById("run-data").textContent);
  const svg = document.querySelector("svg.chart");
  const byId = new Map();
  svg.querySelectorAll("[data-id]").forEach((el) => {
    const list = byId.get(el.dataset.id) || [];
    list.push(el);
    byId.set(el.dataset.id, list);
  });
  const rows = data.rows;
  const list = document.getElementById("timeline");
  const slider = document.getElementById("step");
  const label = document.getElementById("step-label");
  const shown = document.getElementById("shown");
  const ENTITIES = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };
  const esc = (text) => String(text).replace(/[&<>"']/g, (c) => ENTITIES[c]);
  const span = (cls, html) => '<span class="' + cls + '">' + html + "</span>";
  const call = (name, id) => span("tool-name", esc(name)) + " [" + esc(id) + "]";
  const stateName = (id) => (id.startsWith(data.chartId + ".") ? id.slice(data.chartId.length + 1) : id);
  function detail(type, d) {
    switch (type) {
      case "run.started": return d.length > 0 ? esc(d[0]) : "";
      case "model.replied":
        return "step " + d[0] + " · " + span("tokens", d[1] + " tokens") + " so far (" +
          (d.length > 2 ? "usage " + d[2] + " in / " + d[3] + " out" : "estimated") + ")";
      case "tool.started": case "tool.finished": return call(d[0], d[1]);
      case "approval.decided":
        return (d[2] ? span("approved", "approved") : span("denied", "denied")) + " " + call(d[0], d[1]) +
          (d.length > 3 ? " (" + esc(d[3]) + ")" : "");
      case "run.cancelled": return span("cancelled", esc(d[0]));
      case "run.finished": return esc(d[0]);
      case "user.messaged": return span("turn", "turn " + d[0]);
      case "context.compacted": return span("turn", esc(d[0]));
      case "model.failed": return span("denied", esc(d[0]));
      case "retry.waited": return span("turn", esc(d[0]));
      case "output.checked": return d[0] === 1 ? span("approved", esc(d[1])) : span("denied", esc(d[1]));
      case "guardrail.checked": return d[0] === 1 ? span("denied", esc(d[1])) : span("approved", esc(d[1]));
    }
    // An event type this page does not know yet still shows what the data says of it.
    return esc(d.join(" "));
  }
  function message(m) {
    const role = (name) => span("role", name);
    if (m[0] < 2) {
      const name = m[0] === 0 ? "system" : "user";
      return '<div class="msg ' + name + '">' + role(name) + span("text", esc(m[1])) + "</div>";
    }
    if (m[0] === 2) {
      const calls = m[2].map((c) => span("call", span("tool-name", esc(c[0])) + "(" + esc(c[1]) + ") " + span("call-id", "[" + esc(c[2]) + "]"))).join("");
      return '<div class="msg assistant">' + role("assistant") + (m[1] === "" ? "" : span("text", esc(m[1]))) + calls + "</div>";
    }
    return '<div class="msg tool' + (m[4] ? " error" : "") + '">' + role("tool") + span("call-id", "[" + esc(m[2]) + "]") + " " +
      span("tool-name", esc(m[3])) + " = " + span("text", esc(m[1])) + "</div>";
  }
  const notes = (i) => (data.notes[i] || []).map((n) => '<li class="note ' + n[0] + '">' + esc(n[1]) + "</li>").join("");
  function entry(i) {
    const r = rows[i];
    const type = data.types[r[0]];
    const error = r[5].some((m) => m[0] === 3 && m[4]);
    const moves = data.moves[r[3]][0];
    return notes(i) + '<li class="entry type-' + type.replace(".", "-") + (error ? " has-error" : "") + '" data-index="' + i + '">' +
      '<div class="head">' + span("time", "+" + esc(r[1])) + span("seq", "#" + i) + span("type", type) + span("detail", detail(type, r[4])) + "</div>" +
      r[5].map(message).join("") + (moves === "" ? "" : '<div class="moves">' + moves + "</div>") + "</li>";
  }
  let lit = [];
  let start = -1;
  function render(from) {
    start = Math.max(0, Math.min(from, Math.max(0, rows.length - data.window)));
    const end = Math.min(rows.length, start + data.window);
    let html = "";
    for (let i = start; i < end; i++) html += entry(i);
    if (end === rows.length) html += notes(rows.length);
    list.innerHTML = html;
    shown.textContent = rows.length === 0 ? "" : "events " + (start + 1) + "–" + end + " of " + rows.length;
    document.getElementById("earlier").disabled = start === 0;
    document.getElementById("later").disabled = end >= rows.length;
  }
  function select(index, scroll) {
    const row = rows[index];
    if (!row) return;
    for (const el of lit) el.classList.remove("focus");
    lit = [];
    for (const i of data.moves[row[3]][1]) for (const el of byId.get(data.ids[i]) || []) { el.classList.add("focus"); lit.push(el); }
    label.textContent = "#" + index + " " + data.types[row[0]] + " · +" + row[1] + " · " + stateName(data.ids[row[2]]);
    slider.value = String(index);
    if (index < start || index >= start + data.window) render(index - Math.floor(data.window / 2));
    list.querySelectorAll(".entry.current").forEach((el) => el.classList.remove("current"));
    const item = list.querySelector('.entry[data-index="' + index + '"]');
    if (item) {
      item.classList.add("current");
      if (scroll) list.scrollTop = item.offsetTop - list.offsetTop - list.clientHeight / 3;
    }
  }
  slider.addEventListener("input", () => select(Number(slider.value), true));
  list.addEventListener("click", (event) => {
    const item = event.target.closest(".entry");
    if (item) select(Number(item.dataset.index), false);
  });
  document.getElementById("earlier").addEventListener("click", () => { render(start - data.window); list.scrollTop = 0; });
  document.getElementById("later").addEventListener("click", () => { render(start + data.window); list.scrollTop = 0; });
  const marks = document.getElementById("marks");
  const last = Math.max(1, rows.length - 1);
  for (const [at, kind, text] of data.marks) {
    const tick = document.createElement("button");
    tick.type = "button";
    tick.className = "mark " + kind;
    tick.style.left = (100 * at / last) + "%";
    tick.title = text;
    tick.addEventListener("click", () => select(at, true));
    marks.append(tick);
  }
  render(0);
  select(0, false);
  document.body.dataset.ready = "true";
})();
`;
