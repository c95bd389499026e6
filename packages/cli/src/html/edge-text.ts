import { ALWAYS, type Chart, type ChartEdge } from "../chart/statechart.js";

/** Height of one line of edge text, in SVG user units. */
export const LINE_HEIGHT = 13;

/** The label drawn on an edge: the event (none for eventless ones), the guard (long ones wrapped at `&&`/`||`), and the actions of a targetless one. */
export function labelLines(edge: ChartEdge): string[] {
  const lines = edge.event === ALWAYS ? [] : [edge.event];
  if (edge.guard !== null) {
    const parts = edge.guard.split(/ (?=&&|\|\|)/);
    lines.push(
      ...parts.map((part, index) => `${index === 0 ? "[" : ""}${part}${index === parts.length - 1 ? "]" : ""}`),
    );
  }
  if (edge.target === null && edge.actions.length > 0) lines.push(`/ ${edge.actions.join(", ")}`);
  return lines;
}

/** The targetless transitions of a state, drawn inside it as internal transitions (UML style) rather than as loops. */
export function internalEdges(chart: Chart, id: string): ChartEdge[] {
  return chart.edges.filter((edge) => edge.source === id && edge.target === null);
}

/** Lines of text the internal transitions of a state take. */
export function internalLineCount(chart: Chart, id: string): number {
  return internalEdges(chart, id).reduce((sum, edge) => sum + Math.max(1, labelLines(edge).length), 0);
}
