import type { ElkExtendedEdge, ElkNode } from "elkjs/lib/elk.bundled.js";
import type { RunPath } from "../chart/run-path.js";
import type { Chart, ChartNode } from "../chart/statechart.js";
import { countedLines, internalEdges } from "./edge-text.js";
import { LINE_HEIGHT, linesWidth, textWidth } from "./text-size.js";

/** A rectangle in SVG user units: top-left corner, width, height. */
export interface Box {
  readonly x: number;
  readonly y: number;
  readonly width: number;
  readonly height: number;
}

/** A laid-out transition: its route (a polyline) and its label's box, both in absolute units. */
export interface EdgeRoute {
  readonly points: readonly { readonly x: number; readonly y: number }[];
  readonly label: Box | null;
  readonly lines: readonly string[];
}

/** Where everything of the chart is drawn. */
export interface ChartLayout {
  /** Every state (and `any state`, under the chart's id) by chart id. */
  readonly boxes: ReadonlyMap<string, Box>;
  /** Transitions with a target, by chart edge id; initial arrows under `initial:<parent id>`. */
  readonly edges: ReadonlyMap<string, EdgeRoute>;
  /** Initial-state dots, by the id of the state whose initial child they point at. */
  readonly initials: ReadonlyMap<string, Box>;
  readonly width: number;
  readonly height: number;
}

/** Sizes of text in a state: the name, the internal transitions, the count line. */
export const NAME_SIZE = 13;
export const SMALL_SIZE = 11;
const NAME_HEIGHT = 30;
const PAD = 12;
const INITIAL = 10;

type ElkConstructor = typeof import("elkjs/lib/elk.bundled.js").default;

/**
 * elkjs, loaded the first time a chart is laid out: it is 1.4 MB of JavaScript, and no command but
 * those drawing a chart should pay for reading it. It is CommonJS: its module is the constructor,
 * which its types call the default export.
 */
async function loadElk(): Promise<ElkConstructor> {
  const module: { default: unknown } = await import("elkjs/lib/elk.bundled.js");
  const inner = (module.default as { default?: unknown }).default;
  return (inner ?? module.default) as ElkConstructor;
}

const OPTIONS: Record<string, string> = {
  "elk.algorithm": "layered",
  "elk.direction": "RIGHT",
  "elk.hierarchyHandling": "INCLUDE_CHILDREN",
  "elk.edgeRouting": "ORTHOGONAL",
  "elk.edgeLabels.placement": "CENTER",
  "elk.spacing.nodeNode": "28",
  "elk.spacing.edgeNode": "18",
  "elk.spacing.edgeEdge": "12",
  "elk.spacing.edgeLabel": "4",
  "elk.spacing.labelLabel": "6",
  "elk.layered.spacing.nodeNodeBetweenLayers": "46",
  "elk.layered.spacing.edgeNodeBetweenLayers": "18",
  "elk.layered.spacing.edgeEdgeBetweenLayers": "12",
  "elk.layered.nodePlacement.strategy": "NETWORK_SIMPLEX",
  "elk.padding": "[top=16,left=16,bottom=16,right=16]",
};

/** The lines written inside a state: its internal transitions (one line each), and how often it was entered. */
export function stateLines(chart: Chart, node: ChartNode, path: RunPath): { internal: string[]; count: string | null } {
  const internal = internalEdges(chart, node.id).map((edge) => countedLines(edge, path.taken.get(edge.id)).join(" "));
  const visits = path.visits.get(node.id);
  return { internal, count: visits === undefined ? null : `entered ×${visits}` };
}

/**
 * Lays the chart out with ELK's layered algorithm (Eclipse Layout Kernel, through elkjs): compound
 * states as frames holding their children, transitions routed orthogonally between them, every
 * label placed by the layout itself, so that no label sits on another label or on a state. Sizes
 * include the run's counts, so that a count is never clipped. The result depends on the chart and
 * the counts only.
 */
export async function layoutChart(chart: Chart, path: RunPath): Promise<ChartLayout> {
  const children = (parent: string) => chart.nodes.filter((node) => node.parent === parent);
  const edges: ElkExtendedEdge[] = [];
  const nodeOf = (node: ChartNode): ElkNode => {
    const kids = children(node.id);
    const { internal, count } = stateLines(chart, node, path);
    const texts = [...internal, ...(count === null ? [] : [count])];
    if (kids.length === 0) {
      const width = Math.max(textWidth(node.key, NAME_SIZE), linesWidth(texts, SMALL_SIZE)) + 2 * PAD;
      return {
        id: node.id,
        width: Math.max(110, width),
        height: NAME_HEIGHT + texts.length * LINE_HEIGHT + (texts.length > 0 ? 8 : 0),
      };
    }
    const header = NAME_HEIGHT + texts.length * LINE_HEIGHT;
    const minWidth = Math.max(textWidth(node.key, NAME_SIZE), linesWidth(texts, SMALL_SIZE)) + 2 * PAD;
    return {
      id: node.id,
      layoutOptions: {
        "elk.padding": `[top=${header + 8},left=${PAD + 4},bottom=${PAD + 4},right=${PAD + 4}]`,
        "elk.nodeSize.constraints": "MINIMUM_SIZE",
        "elk.nodeSize.minimum": `(${minWidth},${header + 40})`,
      },
      children: [...initialOf(node, edges), ...kids.map(nodeOf)],
    };
  };
  const root = chart.nodes.find((node) => node.id === chart.id);
  if (root === undefined) throw new Error(`chart '${chart.id}' has no root state`);
  const top = [...initialOf(root, edges), ...children(root.id).map(nodeOf)];
  if (chart.edges.some((edge) => edge.source === chart.id && edge.target !== null)) {
    top.push({ id: chart.id, width: textWidth("any state", NAME_SIZE) + 2 * PAD + 20, height: NAME_HEIGHT + 6 });
  }
  for (const edge of chart.edges) {
    if (edge.target === null) continue;
    const lines = countedLines(edge, path.taken.get(edge.id));
    const labels =
      lines.length === 0
        ? []
        : [
            {
              id: `${edge.id}#label`,
              text: lines.join("\n"),
              width: linesWidth(lines, SMALL_SIZE) + 6,
              height: lines.length * LINE_HEIGHT + 4,
            },
          ];
    edges.push({ id: edge.id, sources: [edge.source], targets: [edge.target], labels });
  }
  const ELK = await loadElk();
  const laid = await new ELK().layout({ id: "__chart", layoutOptions: OPTIONS, children: top, edges });
  return absolute(laid);
}

/** A dot and an arrow into a state's initial child, as ELK nodes and edges of their own. */
function initialOf(node: ChartNode, edges: ElkExtendedEdge[]): ElkNode[] {
  if (node.initial === null) return [];
  const id = `initial:${node.id}`;
  edges.push({ id, sources: [id], targets: [node.initial] });
  return [{ id, width: INITIAL, height: INITIAL }];
}

/** ELK gives positions relative to the parent (nodes) or the container (edges): make them absolute. */
function absolute(laid: ElkNode): ChartLayout {
  const boxes = new Map<string, Box>();
  const initials = new Map<string, Box>();
  const origins = new Map<string, { x: number; y: number }>([[laid.id, { x: 0, y: 0 }]]);
  const visit = (node: ElkNode, origin: { x: number; y: number }) => {
    for (const child of node.children ?? []) {
      const x = origin.x + (child.x ?? 0);
      const y = origin.y + (child.y ?? 0);
      origins.set(child.id, { x, y });
      const box = { x, y, width: child.width ?? 0, height: child.height ?? 0 };
      if (child.id.startsWith("initial:")) initials.set(child.id.slice("initial:".length), box);
      else boxes.set(child.id, box);
      visit(child, { x, y });
    }
  };
  visit(laid, { x: 0, y: 0 });
  const edges = new Map<string, EdgeRoute>();
  const collect = (node: ElkNode) => {
    for (const edge of node.edges ?? []) {
      const container = (edge as ElkExtendedEdge & { container?: string }).container ?? node.id;
      const origin = origins.get(container) ?? { x: 0, y: 0 };
      const move = (point: { x: number; y: number }) => ({ x: point.x + origin.x, y: point.y + origin.y });
      const points = (edge.sections ?? []).flatMap((section) => [
        move(section.startPoint),
        ...(section.bendPoints ?? []).map(move),
        move(section.endPoint),
      ]);
      const [label] = edge.labels ?? [];
      const box =
        label === undefined
          ? null
          : {
              x: (label.x ?? 0) + origin.x,
              y: (label.y ?? 0) + origin.y,
              width: label.width ?? 0,
              height: label.height ?? 0,
            };
      edges.set(edge.id, { points, label: box, lines: label?.text?.split("\n") ?? [] });
    }
    for (const child of node.children ?? []) collect(child);
  };
  collect(laid);
  return { boxes, edges, initials, width: laid.width ?? 0, height: laid.height ?? 0 };
}
