import type { ChartEdge } from "./statechart.js";

/** An edge's label as statecharts write it: `event [guard] / actions`. */
export function edgeLabel(edge: ChartEdge): string {
  const guard = edge.guard === null ? "" : ` [${edge.guard}]`;
  const actions = edge.actions.length === 0 ? "" : ` / ${edge.actions.join(", ")}`;
  return `${edge.event}${guard}${actions}`;
}
