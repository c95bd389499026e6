import { edgeLabel } from "../chart/edge-label.js";
import { NO_PATH, type RunPath } from "../chart/run-path.js";
import { ALWAYS, type Chart, type ChartEdge, type ChartNode } from "../chart/statechart.js";
import { leafOf } from "./chart-tree.js";
import { curve, type EdgeShape, overTheTop } from "./edge-geometry.js";
import { internalEdges, LINE_HEIGHT, labelLines } from "./edge-text.js";
import { escapeHtml } from "./escape.js";
import { type Box, type Layout, layoutChart } from "./layout.js";

const LANE_GAP = 26;
const LANE_STEP = 18;
const BEND_STEP = 28;

/**
 * The chart as an inline SVG, laid out by `layoutChart`: leaves as boxes (finals with a double
 * border), compound states as frames, targetless transitions written inside their state (UML's
 * internal transitions), the machine's own transitions from an `any state` box, eventless
 * transitions dashed. With a run's path, visited states and taken transitions carry the classes
 * `visited`, `end` and `taken` and their counts. Every state and transition has its chart id in `data-id`.
 */
export function renderChartSvg(chart: Chart, path: RunPath = NO_PATH): string {
  const layout = layoutChart(chart);
  const top = Math.min(...[...layout.boxes.values()].map((box) => box.y));
  const { shapes, lanes } = edgeShapes(chart, layout, top - LANE_GAP);
  const parts: string[] = [];
  const states = (filter: (node: ChartNode) => boolean) => chart.nodes.filter(filter);
  for (const node of states((n) => n.kind !== "root" && chart.nodes.some((c) => c.parent === n.id))) {
    const box = layout.boxes.get(node.id);
    if (box !== undefined) parts.push(stateSvg(chart, node, box, path, true));
  }
  parts.push(...initialArrows(chart, layout));
  for (const edge of chart.edges) {
    const shape = shapes.get(edge.id);
    if (shape !== undefined) parts.push(edgeSvg(edge, shape, path.taken.get(edge.id)));
  }
  for (const node of states((n) => !chart.nodes.some((c) => c.parent === n.id) || n.kind === "root")) {
    const box = layout.boxes.get(node.id);
    if (box === undefined) continue;
    parts.push(node.kind === "root" ? anySvg(node, box) : stateSvg(chart, node, box, path, false));
  }
  const boxes = [...layout.boxes.values()];
  const minY = top - (lanes > 0 ? LANE_GAP + LANE_STEP * lanes + 16 : 12);
  const width = Math.max(...boxes.map((box) => box.x + box.width)) + 30;
  const height = Math.max(...boxes.map((box) => box.y + box.height)) + 24 - minY;
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" class="chart" viewBox="0 ${minY} ${width} ${height}" width="${width}" height="${height}" role="img" aria-label="${escapeHtml(`Statechart of ${chart.id}`)}">`,
    `<defs>${arrowMarker("arrow", "#475569")}${arrowMarker("arrow-taken", "#c2410c")}</defs>`,
    ...parts,
    "</svg>",
  ].join("\n");
}

function arrowMarker(id: string, color: string): string {
  return `<marker id="${id}" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="${color}"/></marker>`;
}

function edgeShapes(chart: Chart, layout: Layout, laneTop: number): { shapes: Map<string, EdgeShape>; lanes: number } {
  const shapes = new Map<string, EdgeShape>();
  const drawn = chart.edges.filter((edge) => edge.target !== null);
  const pairOf = (edge: ChartEdge) => [edge.source, edge.target].sort().join("|");
  let lanes = 0;
  for (const edge of drawn) {
    const from = layout.boxes.get(edge.source);
    const to = edge.target === null ? undefined : layout.boxes.get(edge.target);
    if (from === undefined || to === undefined || edge.target === null) continue;
    const span =
      (layout.columns.get(leafOf(chart, edge.source)) ?? 0) - (layout.columns.get(leafOf(chart, edge.target)) ?? 0);
    if (span >= 2 && edge.source !== chart.id) {
      shapes.set(edge.id, overTheTop(from, to, laneTop - LANE_STEP * lanes++));
      continue;
    }
    const siblings = drawn.filter((other) => pairOf(other) === pairOf(edge));
    const reversed = edge.source > edge.target ? -1 : 1;
    const bend = (siblings.indexOf(edge) - (siblings.length - 1) / 2) * BEND_STEP * reversed;
    shapes.set(edge.id, curve(from, to, bend));
  }
  return { shapes, lanes };
}

function edgeSvg(edge: ChartEdge, shape: EdgeShape, taken: number | undefined): string {
  const classes = ["edge", edge.event === ALWAYS ? "eventless" : "", taken === undefined ? "" : "taken"].filter(
    Boolean,
  );
  const lines = labelLines(edge);
  if (taken !== undefined) lines.push(`${lines.pop() ?? ""} ×${taken}`.trim());
  const x = shape.label.x.toFixed(1);
  const y = (shape.label.y - ((lines.length - 1) * LINE_HEIGHT) / 2 + 4).toFixed(1);
  const tspans = lines.map(
    (line, index) => `<tspan x="${x}" dy="${index === 0 ? 0 : LINE_HEIGHT}">${escapeHtml(line)}</tspan>`,
  );
  return [
    `<g class="${classes.join(" ")}" data-id="${escapeHtml(edge.id)}">`,
    `<title>${escapeHtml(`${edge.source} → ${edge.target}: ${edgeLabel(edge)}${taken === undefined ? "" : ` (taken ${taken}×)`}`)}</title>`,
    `<path d="${shape.d}" marker-end="url(#${taken === undefined ? "arrow" : "arrow-taken"})"/>`,
    lines.length === 0 ? "" : `<text x="${x}" y="${y}">${tspans.join("")}</text>`,
    "</g>",
  ].join("");
}

/** A targetless transition written inside its state, one or more lines from `y` down. */
function internalSvg(edge: ChartEdge, x: number, y: number, taken: number | undefined, oneLine: boolean): string {
  const lines = oneLine ? [labelLines(edge).join(" ")] : labelLines(edge);
  if (taken !== undefined) lines.push(`${lines.pop() ?? ""} ×${taken}`);
  const tspans = lines.map(
    (line, index) => `<tspan x="${x}" dy="${index === 0 ? 0 : LINE_HEIGHT}">${escapeHtml(line)}</tspan>`,
  );
  const classes = [
    "edge",
    "internal",
    oneLine ? "header" : "",
    edge.event === ALWAYS ? "eventless" : "",
    taken === undefined ? "" : "taken",
  ];
  return [
    `<g class="${classes.filter(Boolean).join(" ")}" data-id="${escapeHtml(edge.id)}">`,
    `<title>${escapeHtml(`${edge.source} (stays): ${edgeLabel(edge)}`)}</title>`,
    `<text x="${x}" y="${y}">${tspans.join("")}</text></g>`,
  ].join("");
}

function stateSvg(chart: Chart, node: ChartNode, box: Box, path: RunPath, frame: boolean): string {
  const visits = path.visits.get(node.id);
  const classes = ["state", node.kind, visits === undefined ? "" : "visited", node.id === path.end ? "end" : ""];
  const inner =
    node.kind === "final"
      ? `<rect class="inner" x="${box.x + 4}" y="${box.y + 4}" width="${box.width - 8}" height="${box.height - 8}" rx="6"/>`
      : "";
  const internals = internalEdges(chart, node.id);
  const nameY = frame ? box.y + 18 : box.y + (internals.length === 0 ? box.height / 2 + 5 : 24);
  const nameX = frame ? box.x + 12 : box.x + box.width / 2;
  let lineY = frame ? box.y + 18 : box.y + 44;
  const internal = internals.map((edge) => {
    const svg = internalSvg(edge, frame ? box.x + box.width - 40 : box.x + 12, lineY, path.taken.get(edge.id), frame);
    lineY += (frame ? 1 : labelLines(edge).length) * LINE_HEIGHT + (frame ? 1 : 0);
    return svg;
  });
  const divider =
    internals.length === 0 || frame ? "" : `<path class="divider" d="M${box.x},${box.y + 32} h${box.width}"/>`;
  return [
    `<g class="${classes.filter(Boolean).join(" ")}" data-id="${escapeHtml(node.id)}">`,
    `<title>${escapeHtml(node.id)}${visits === undefined ? "" : ` — entered ${visits}×`}</title>`,
    `<rect x="${box.x}" y="${box.y}" width="${box.width}" height="${box.height}" rx="${frame ? 14 : 9}"/>${inner}${divider}`,
    `<text class="${frame ? "frame-label" : "name"}" x="${nameX}" y="${nameY}">${escapeHtml(node.key)}</text>`,
    ...internal,
    badge(box, visits),
    "</g>",
  ].join("");
}

function badge(box: Box, visits: number | undefined): string {
  if (visits === undefined) return "";
  const x = box.x + box.width - 30;
  return `<g class="badge"><rect x="${x}" y="${box.y - 9}" width="30" height="17" rx="8.5"/><text x="${x + 15}" y="${box.y + 3.5}">×${visits}</text></g>`;
}

function anySvg(node: ChartNode, box: Box): string {
  return [
    `<g class="state any" data-id="${escapeHtml(node.id)}">`,
    `<title>${escapeHtml(node.id)}: the machine's own transitions, taken in any state</title>`,
    `<rect x="${box.x}" y="${box.y}" width="${box.width}" height="${box.height}" rx="20"/>`,
    `<text class="name" x="${box.x + box.width / 2}" y="${box.y + box.height / 2 + 5}">any state</text>`,
    "</g>",
  ].join("");
}

function initialArrows(chart: Chart, layout: Layout): string[] {
  return chart.nodes.flatMap((node) => {
    const target = node.initial === null ? undefined : layout.boxes.get(node.initial);
    if (target === undefined) return [];
    const y = target.y + Math.min(target.height / 2, 20);
    const x = target.x - (node.kind === "root" ? 30 : 18);
    return [
      `<g class="initial"><circle cx="${x - 5}" cy="${y}" r="5"/><path d="M${x},${y} L${target.x},${y}" marker-end="url(#arrow)"/></g>`,
    ];
  });
}
