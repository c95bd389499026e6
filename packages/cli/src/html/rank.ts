import type { Chart, ChartNode } from "../chart/statechart.js";
import { isReached, leafOf } from "./chart-tree.js";

/**
 * Columns of the leaves: the longest path from the initial leaf over forward edges, where a back
 * edge (one that closes a loop in a depth-first walk) is left out. Leaves that no transition but
 * the machine's own reaches are returned apart, in `unreached`, without a column.
 */
export function rankLeaves(
  chart: Chart,
  leaves: readonly ChartNode[],
): { columns: Map<string, number>; unreached: Set<string> } {
  const next = new Map<string, string[]>(leaves.map((leaf) => [leaf.id, []]));
  for (const edge of chart.edges) {
    if (edge.target === null || !next.has(edge.source)) continue;
    const target = leafOf(chart, edge.target);
    if (target !== edge.source) next.get(edge.source)?.push(target);
  }
  const start = leafOf(chart, chart.id);
  const order: string[] = [];
  const onStack = new Set<string>();
  const forward = new Map<string, string[]>();
  const visit = (id: string) => {
    onStack.add(id);
    forward.set(id, []);
    for (const target of next.get(id) ?? []) {
      if (onStack.has(target)) continue;
      forward.get(id)?.push(target);
      if (!forward.has(target)) visit(target);
    }
    onStack.delete(id);
    order.unshift(id);
  };
  visit(start);
  const columns = new Map<string, number>([[start, 0]]);
  for (const id of order) {
    for (const target of forward.get(id) ?? []) {
      columns.set(target, Math.max(columns.get(target) ?? 0, (columns.get(id) ?? 0) + 1));
    }
  }
  const unreached = new Set(
    leaves.filter((leaf) => !isReached(chart, leaf.id) || !columns.has(leaf.id)).map((leaf) => leaf.id),
  );
  for (const id of unreached) columns.delete(id);
  return { columns, unreached };
}
