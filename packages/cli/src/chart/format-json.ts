import { NO_PATH, type RunPath } from "./run-path.js";
import type { Chart } from "./statechart.js";

/** The chart as JSON: its states and transitions, with `visits` and `taken` counts when a run's path is given. */
export function toJson(chart: Chart, path: RunPath = NO_PATH): string {
  const marked = path.visits.size > 0;
  const nodes = chart.nodes.map((node) =>
    marked ? { ...node, visits: path.visits.get(node.id) ?? 0, end: node.id === path.end } : node,
  );
  const edges = chart.edges.map((edge) => (marked ? { ...edge, taken: path.taken.get(edge.id) ?? 0 } : edge));
  return `${JSON.stringify({ id: chart.id, nodes, edges }, null, 2)}\n`;
}
