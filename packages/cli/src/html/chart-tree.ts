import type { Chart } from "../chart/statechart.js";

/** The leaf a transition to `id` ends in: `id`, or its initial state's leaf. */
export function leafOf(chart: Chart, id: string): string {
  const node = chart.nodes.find((n) => n.id === id);
  return node?.initial ? leafOf(chart, node.initial) : id;
}

/** The child of the root that holds `id` (or `id` itself). */
export function topLevelOf(chart: Chart, id: string): string {
  const node = chart.nodes.find((n) => n.id === id);
  return node === undefined || node.parent === null || node.parent === chart.id ? id : topLevelOf(chart, node.parent);
}

/** Whether a state is the initial one or the target of a transition other than the machine's own. */
export function isReached(chart: Chart, id: string): boolean {
  return (
    leafOf(chart, chart.id) === id ||
    chart.edges.some((edge) => edge.source !== chart.id && edge.target !== null && leafOf(chart, edge.target) === id)
  );
}
