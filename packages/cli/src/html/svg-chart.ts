import { edgeLabel } from "../chart/edge-label.js";
import { NO_PATH, type RunPath } from "../chart/run-path.js";
import { ALWAYS, type Chart, type ChartEdge, type ChartNode } from "../chart/statechart.js";
import { type Box, type EdgeRoute, layoutChart, stateLines } from "./chart-layout.js";
import { internalEdges } from "./edge-text.js";
import { escapeHtml } from "./escape.js";
import { LINE_HEIGHT } from "./text-size.js";

const MARGIN = 8;

/**
 * The chart as an inline SVG, laid out by `layoutChart` (ELK): leaves as boxes (finals with a
 * double border), compound states as frames, targetless transitions written inside their state
 * (UML's internal transitions), the machine's own transitions from an `any state` box, eventless
 * transitions dashed. With a run's path, visited states and taken transitions carry the classes
 * `visited`, `end` and `taken` and their counts. Every state and transition has its chart id in
 * `data-id`; every label is a `text.label` of its own.
 */
export async function renderChartSvg(chart: Chart, path: RunPath = NO_PATH): Promise<string> {
  const layout = await layoutChart(chart, path);
  const isFrame = (node: ChartNode) => node.kind !== "root" && chart.nodes.some((child) => child.parent === node.id);
  const parts: string[] = [];
  for (const node of chart.nodes.filter(isFrame)) {
    const box = layout.boxes.get(node.id);
    if (box !== undefined) parts.push(stateSvg(chart, node, box, path, true));
  }
  for (const [id, box] of layout.initials) parts.push(initialSvg(id, box, layout.edges.get(`initial:${id}`)));
  const drawn = chart.edges.filter((edge) => layout.edges.has(edge.id));
  for (const edge of drawn)
    parts.push(edgePathSvg(edge, layout.edges.get(edge.id) as EdgeRoute, path.taken.get(edge.id)));
  for (const node of chart.nodes.filter((n) => !isFrame(n))) {
    const box = layout.boxes.get(node.id);
    if (box === undefined) continue;
    parts.push(node.kind === "root" ? anySvg(node, box) : stateSvg(chart, node, box, path, false));
  }
  for (const edge of drawn)
    parts.push(edgeLabelSvg(edge, layout.edges.get(edge.id) as EdgeRoute, path.taken.get(edge.id)));
  const width = Math.ceil(layout.width + 2 * MARGIN);
  const height = Math.ceil(layout.height + 2 * MARGIN);
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" class="chart" viewBox="${-MARGIN} ${-MARGIN} ${width} ${height}" width="${width}" height="${height}" role="img" aria-label="${escapeHtml(`Statechart of ${chart.id}`)}">`,
    `<defs>${arrowMarker("arrow", "#475569")}${arrowMarker("arrow-taken", "#c2410c")}</defs>`,
    ...parts,
    "</svg>",
  ].join("\n");
}

function arrowMarker(id: string, color: string): string {
  return `<marker id="${id}" viewBox="0 0 10 10" refX="9" refY="5" markerUnits="userSpaceOnUse" markerWidth="9" markerHeight="9" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="${color}"/></marker>`;
}

const fmt = (n: number) => String(Math.round(n * 10) / 10);

function pathOf(route: EdgeRoute): string {
  return route.points.map((point, index) => `${index === 0 ? "M" : "L"}${fmt(point.x)},${fmt(point.y)}`).join(" ");
}

function edgePathSvg(edge: ChartEdge, route: EdgeRoute, taken: number | undefined): string {
  const classes = ["edge", edge.event === ALWAYS ? "eventless" : "", taken === undefined ? "" : "taken"].filter(
    Boolean,
  );
  return [
    `<g class="${classes.join(" ")}" data-id="${escapeHtml(edge.id)}">`,
    `<title>${escapeHtml(`${edge.source} → ${edge.target}: ${edgeLabel(edge)}${taken === undefined ? "" : ` (taken ${taken}×)`}`)}</title>`,
    `<path d="${pathOf(route)}" marker-end="url(#${taken === undefined ? "arrow" : "arrow-taken"})"/>`,
    "</g>",
  ].join("");
}

function edgeLabelSvg(edge: ChartEdge, route: EdgeRoute, taken: number | undefined): string {
  const box = route.label;
  if (box === null || route.lines.length === 0) return "";
  const classes = ["edge-label", taken === undefined ? "" : "taken"].filter(Boolean).join(" ");
  const x = box.x + box.width / 2;
  const tspans = route.lines.map(
    (line, index) => `<tspan x="${fmt(x)}" dy="${index === 0 ? 0 : LINE_HEIGHT}">${escapeHtml(line)}</tspan>`,
  );
  return `<g class="${classes}" data-id="${escapeHtml(edge.id)}"><text class="label" x="${fmt(x)}" y="${fmt(box.y + 12)}">${tspans.join("")}</text></g>`;
}

function stateSvg(chart: Chart, node: ChartNode, box: Box, path: RunPath, frame: boolean): string {
  const visits = path.visits.get(node.id);
  const classes = ["state", node.kind, visits === undefined ? "" : "visited", node.id === path.end ? "end" : ""];
  const inner =
    node.kind === "final"
      ? `<rect class="inner" x="${fmt(box.x + 4)}" y="${fmt(box.y + 4)}" width="${fmt(box.width - 8)}" height="${fmt(box.height - 8)}" rx="6"/>`
      : "";
  const { internal, count } = stateLines(chart, node, path);
  const edges = internalEdges(chart, node.id);
  const nameX = frame ? box.x + 12 : box.x + box.width / 2;
  const nameY = box.y + 20;
  const lineX = frame ? box.x + 12 : box.x + 12;
  let lineY = box.y + 30 + 10;
  const lines = internal.map((text, index) => {
    const edge = edges[index] as ChartEdge;
    const taken = path.taken.has(edge.id) ? " taken" : "";
    const svg = `<g class="edge internal${edge.event === ALWAYS ? " eventless" : ""}${taken}" data-id="${escapeHtml(edge.id)}"><title>${escapeHtml(`${edge.source} (stays): ${edgeLabel(edge)}`)}</title><text class="label" x="${fmt(lineX)}" y="${fmt(lineY)}">${escapeHtml(text)}</text></g>`;
    lineY += LINE_HEIGHT;
    return svg;
  });
  const countSvg =
    count === null ? "" : `<text class="count" x="${fmt(lineX)}" y="${fmt(lineY)}">${escapeHtml(count)}</text>`;
  const divider =
    internal.length === 0 && count === null
      ? ""
      : `<path class="divider" d="M${fmt(box.x)},${fmt(box.y + 28)} h${fmt(box.width)}"/>`;
  return [
    `<g class="${classes.filter(Boolean).join(" ")}" data-id="${escapeHtml(node.id)}">`,
    `<title>${escapeHtml(node.id)}${visits === undefined ? "" : ` — entered ${visits}×`}</title>`,
    `<rect class="box" x="${fmt(box.x)}" y="${fmt(box.y)}" width="${fmt(box.width)}" height="${fmt(box.height)}" rx="${frame ? 14 : 9}"/>${inner}${frame ? "" : divider}`,
    `<text class="${frame ? "frame-label" : "name"}" x="${fmt(nameX)}" y="${fmt(nameY)}">${escapeHtml(node.key)}</text>`,
    ...lines,
    countSvg,
    "</g>",
  ].join("");
}

function anySvg(node: ChartNode, box: Box): string {
  return [
    `<g class="state any" data-id="${escapeHtml(node.id)}">`,
    `<title>${escapeHtml(node.id)}: the machine's own transitions, taken in any state</title>`,
    `<rect class="box" x="${fmt(box.x)}" y="${fmt(box.y)}" width="${fmt(box.width)}" height="${fmt(box.height)}" rx="18"/>`,
    `<text class="name" x="${fmt(box.x + box.width / 2)}" y="${fmt(box.y + box.height / 2 + 5)}">any state</text>`,
    "</g>",
  ].join("");
}

function initialSvg(parent: string, box: Box, route: EdgeRoute | undefined): string {
  const arrow = route === undefined ? "" : `<path d="${pathOf(route)}" marker-end="url(#arrow)"/>`;
  return `<g class="initial" data-of="${escapeHtml(parent)}"><circle cx="${fmt(box.x + box.width / 2)}" cy="${fmt(box.y + box.height / 2)}" r="${fmt(box.width / 2)}"/>${arrow}</g>`;
}
