/**
 * The report's script, inlined in the page: hovering or clicking a timeline entry marks the states
 * and transitions it touched on the chart; the slider steps through the run; the path of states is
 * written out. When done it sets `data-ready` on the body, with the number of states drawn and of
 * overlapping state boxes, so that a headless browser can check what was rendered.
 */
export const REPORT_JS = `
(() => {
  const data = JSON.parse(document.getElementById("run-data").textContent);
  const svg = document.querySelector("svg.chart");
  const items = Array.from(document.querySelectorAll(".timeline .entry"));
  const marked = (id) => Array.from(svg.querySelectorAll("[data-id]")).filter((el) => el.dataset.id === id);
  const words = (text) => (text || "").split(" ").filter(Boolean);
  const label = document.getElementById("step-label");
  function focus(item) {
    svg.querySelectorAll(".focus").forEach((el) => el.classList.remove("focus"));
    items.forEach((other) => other.classList.remove("current"));
    if (!item) return;
    item.classList.add("current");
    for (const id of words(item.dataset.states).concat(words(item.dataset.edges))) marked(id).forEach((el) => el.classList.add("focus"));
    label.textContent = item.querySelector(".seq").textContent + " " + item.querySelector(".type").textContent;
  }
  const slider = document.getElementById("step");
  slider.max = String(Math.max(0, items.length - 1));
  slider.addEventListener("input", () => {
    const item = items[Number(slider.value)];
    focus(item);
    if (item) item.scrollIntoView({ block: "nearest" });
  });
  items.forEach((item, index) => {
    item.addEventListener("mouseenter", () => { slider.value = String(index); focus(item); });
    item.addEventListener("click", () => { slider.value = String(index); focus(item); });
  });
  const path = document.getElementById("path");
  data.path.forEach((name, index) => {
    if (index > 0) path.append(" → ");
    const hop = document.createElement("span");
    hop.className = "hop";
    hop.textContent = name;
    path.append(hop);
  });
  const boxes = Array.from(svg.querySelectorAll("g.state:not(.compound) > rect:first-of-type")).map((rect) => rect.getBBox());
  let overlaps = 0;
  boxes.forEach((a, i) => boxes.slice(i + 1).forEach((b) => {
    if (a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height) overlaps++;
  }));
  document.body.dataset.states = String(svg.querySelectorAll("g.state").length);
  document.body.dataset.overlaps = String(overlaps);
  document.body.dataset.ready = "true";
})();
`;
