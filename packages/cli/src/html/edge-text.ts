import { ALWAYS, type Chart, type ChartEdge } from "../chart/statechart.js";

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

/** An edge's label with the times it was taken appended (`×12`), as drawn. */
export function countedLines(edge: ChartEdge, taken: number | undefined): string[] {
  const lines = labelLines(edge);
  if (taken === undefined) return lines;
  if (lines.length === 0) return [`×${taken}`];
  lines.push(`${lines.pop() ?? ""} ×${taken}`);
  return lines;
}

/** The targetless transitions of a state, drawn inside it as internal transitions (UML style) rather than as loops. */
export function internalEdges(chart: Chart, id: string): ChartEdge[] {
  return chart.edges.filter((edge) => edge.source === id && edge.target === null);
}
