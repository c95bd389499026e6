import type { Chart, ChartNode } from "../chart/statechart.js";
import { isReached, leafOf, topLevelOf } from "./chart-tree.js";
import { internalEdges, internalLineCount, LINE_HEIGHT } from "./edge-text.js";
import { rankLeaves } from "./rank.js";

/** A rectangle in SVG user units: top-left corner, width, height. */
export interface Box {
  readonly x: number;
  readonly y: number;
  readonly width: number;
  readonly height: number;
}

/** Where each state is drawn: leaves and the `any state` pseudo-node as boxes, compound states as frames around their leaves. */
export interface Layout {
  readonly boxes: ReadonlyMap<string, Box>;
  /** Column of each leaf (0 = the initial state's); transitions to an earlier column are drawn as back edges. */
  readonly columns: ReadonlyMap<string, number>;
}

export const NODE_WIDTH = 170;
const NODE_HEIGHT = 40;
const COLUMN_GAP = 170;
const ROW_GAP = 64;
const FRAME_PAD = 30;
const FRAME_HEADER = 22;

type Band = { readonly start: number; readonly size: number };

/**
 * A layered layout, left to right: columns by the longest path from the initial state (back edges
 * ignored); in each column, states in order of definition, the plain (unguarded) target of a
 * state before its guarded ones. The leaves of a compound state share a band of rows so that its
 * frame encloses them and nothing else. States only the machine's own transitions reach go below
 * the rest, with the `any state` node beside them.
 */
export function layoutChart(chart: Chart): Layout {
  const leaves = chart.nodes.filter((node) => node.kind !== "root" && !hasChildren(chart, node.id));
  const { columns, unreached } = rankLeaves(chart, leaves);
  const groups = chart.nodes.filter((node) => node.parent === chart.id).map((node) => node.id);
  const group = (leaf: ChartNode) => groups.indexOf(topLevelOf(chart, leaf.id));
  const order = (a: ChartNode, b: ChartNode) =>
    group(a) - group(b) || preference(chart, a.id) - preference(chart, b.id);
  const bands = bandsOf(chart, leaves, columns, groups);
  const rows = new Map<string, number>();
  const columnCount = Math.max(0, ...columns.values()) + 1;
  for (let column = 0; column < columnCount; column++) {
    const taken = new Set<number>();
    const inColumn = leaves.filter((leaf) => columns.get(leaf.id) === column && !unreached.has(leaf.id)).sort(order);
    for (const leaf of inColumn) {
      const band = bands.get(topLevelOf(chart, leaf.id));
      let row = band?.start ?? 0;
      while (taken.has(row) || (band === undefined && insideBand(row, column, bands, chart, leaves, columns))) row++;
      taken.add(row);
      rows.set(leaf.id, row);
    }
  }
  const lastRow = Math.max(-1, ...rows.values()) + 1;
  [...unreached].forEach((id, index) => {
    rows.set(id, lastRow + index);
    columns.set(id, Math.max(1, columnCount - 1));
  });
  return { boxes: place(chart, leaves, columns, rows), columns };
}

function bandsOf(
  chart: Chart,
  leaves: readonly ChartNode[],
  columns: ReadonlyMap<string, number>,
  groups: readonly string[],
): Map<string, Band> {
  const bands = new Map<string, Band>();
  for (const id of groups.filter((group) => hasChildren(chart, group))) {
    const members = leaves.filter((leaf) => topLevelOf(chart, leaf.id) === id);
    const spanned = [...new Set(members.map((leaf) => columns.get(leaf.id) ?? 0))];
    const size = Math.max(
      1,
      ...spanned.map((column) => members.filter((leaf) => columns.get(leaf.id) === column).length),
    );
    const before = spanned.map(
      (column) =>
        leaves.filter(
          (leaf) => columns.get(leaf.id) === column && groups.indexOf(topLevelOf(chart, leaf.id)) < groups.indexOf(id),
        ).length,
    );
    bands.set(id, { start: Math.max(0, ...before), size });
  }
  return bands;
}

function insideBand(
  row: number,
  column: number,
  bands: ReadonlyMap<string, Band>,
  chart: Chart,
  leaves: readonly ChartNode[],
  columns: ReadonlyMap<string, number>,
): boolean {
  return [...bands].some(([id, band]) => {
    const spans = leaves.some((leaf) => topLevelOf(chart, leaf.id) === id && columns.get(leaf.id) === column);
    return spans && row >= band.start && row < band.start + band.size;
  });
}

/** Lower first: a state reached by an unguarded transition before one reached only by guarded ones. */
function preference(chart: Chart, id: string): number {
  const incoming = chart.edges.filter((edge) => edge.target !== null && leafOf(chart, edge.target) === id);
  return incoming.some((edge) => edge.guard === null) ? 0 : 1;
}

function place(
  chart: Chart,
  leaves: readonly ChartNode[],
  columns: ReadonlyMap<string, number>,
  rows: ReadonlyMap<string, number>,
): Map<string, Box> {
  const heightOf = (id: string) =>
    NODE_HEIGHT + internalLineCount(chart, id) * LINE_HEIGHT + (internalEdges(chart, id).length > 0 ? 8 : 0);
  const rowCount = Math.max(0, ...rows.values()) + 1;
  const rowHeights = Array.from({ length: rowCount }, (_, row) =>
    Math.max(NODE_HEIGHT, ...leaves.filter((leaf) => rows.get(leaf.id) === row).map((leaf) => heightOf(leaf.id))),
  );
  const headers = Math.max(0, ...chart.nodes.map((node) => internalEdges(chart, node.id).length - 1)) * 14;
  const rowTop = (row: number) =>
    FRAME_PAD + FRAME_HEADER + headers + rowHeights.slice(0, row).reduce((sum, height) => sum + height + ROW_GAP, 0);
  const x = (column: number) => FRAME_PAD + 40 + column * (NODE_WIDTH + COLUMN_GAP);
  const boxes = new Map<string, Box>();
  for (const leaf of leaves) {
    const row = rows.get(leaf.id) ?? 0;
    const height = heightOf(leaf.id);
    const y = rowTop(row) + ((rowHeights[row] ?? height) - height) / 2;
    boxes.set(leaf.id, { x: x(columns.get(leaf.id) ?? 0), y, width: NODE_WIDTH, height });
  }
  for (const node of chart.nodes.filter((n) => n.kind !== "root" && hasChildren(chart, n.id))) {
    const inside = leaves.filter((leaf) => isInside(chart, leaf.id, node.id)).map((leaf) => boxes.get(leaf.id));
    const header = FRAME_HEADER + Math.max(0, internalEdges(chart, node.id).length - 1) * 14;
    boxes.set(
      node.id,
      enclose(
        inside.filter((box): box is Box => box !== undefined),
        FRAME_PAD,
        header,
      ),
    );
  }
  const unreached = leaves.find((leaf) => !isReached(chart, leaf.id));
  const anchor = unreached === undefined ? undefined : boxes.get(unreached.id);
  const any =
    anchor === undefined ? { x: x(0), y: rowTop(rowCount) } : { x: anchor.x - NODE_WIDTH - COLUMN_GAP, y: anchor.y };
  boxes.set(chart.id, { ...any, width: NODE_WIDTH, height: NODE_HEIGHT });
  return boxes;
}

function enclose(boxes: readonly Box[], pad: number, header: number): Box {
  const left = Math.min(...boxes.map((box) => box.x)) - pad;
  const top = Math.min(...boxes.map((box) => box.y)) - pad - header;
  const right = Math.max(...boxes.map((box) => box.x + box.width)) + pad;
  const bottom = Math.max(...boxes.map((box) => box.y + box.height)) + pad;
  return { x: left, y: top, width: right - left, height: bottom - top };
}

function hasChildren(chart: Chart, id: string): boolean {
  return chart.nodes.some((node) => node.parent === id);
}

function isInside(chart: Chart, id: string, ancestor: string): boolean {
  const node = chart.nodes.find((n) => n.id === id);
  return node?.parent === ancestor || (node?.parent != null && isInside(chart, node.parent, ancestor));
}
