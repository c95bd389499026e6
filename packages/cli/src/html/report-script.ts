/**
 * The report's script, inlined in the page. The timeline is a window of entries rendered from the
 * page's data around the selected event, so that a run of any length opens fast. The slider
 * selects an event: the states and transitions it touched light up on the chart, the timeline
 * moves to it. Hovering or clicking an entry selects it. Marks on the slider's track show pauses,
 * interruptions and gaps. When done it sets `data-ready` on the body.
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
  let lit = [];
  let start = -1;
  function render(from) {
    start = Math.max(0, Math.min(from, Math.max(0, rows.length - data.window)));
    const end = Math.min(rows.length, start + data.window);
    let html = "";
    for (let i = start; i < end; i++) html += rows[i][0];
    if (end === rows.length) html += data.end;
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
    for (const i of row[1].concat(row[2])) for (const el of byId.get(data.ids[i]) || []) { el.classList.add("focus"); lit.push(el); }
    label.textContent = row[3];
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
  for (const mark of data.marks) {
    const tick = document.createElement("button");
    tick.type = "button";
    tick.className = "mark " + mark.kind;
    tick.style.left = (100 * mark.at / last) + "%";
    tick.title = mark.text;
    tick.addEventListener("click", () => select(mark.at, true));
    marks.append(tick);
  }
  render(0);
  select(0, false);
  document.body.dataset.ready = "true";
})();
`;
