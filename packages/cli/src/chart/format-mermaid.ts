import { edgeLabel } from "./edge-label.js";
import { NO_PATH, type RunPath } from "./run-path.js";
import type { Chart, ChartNode } from "./statechart.js";

/**
 * The chart as a Mermaid `stateDiagram-v2`: compound states as composite states, `[*]` for
 * initial and final states, the machine's own transitions (taken in any state) from an `any
 * state` node. With a run's path, visited states get the `visited` class, the last one `end`,
 * and taken transitions say how often.
 */
export function toMermaid(chart: Chart, path: RunPath = NO_PATH): string {
  const lines = ["stateDiagram-v2"];
  const name = (id: string) => mermaidId(chart, id);
  const children = (id: string) => chart.nodes.filter((node) => node.parent === id);
  const declare = (node: ChartNode, indent: string) => {
    const kids = children(node.id);
    if (kids.length === 0) {
      lines.push(`${indent}state "${node.key}" as ${name(node.id)}`);
      return;
    }
    lines.push(`${indent}state "${node.key}" as ${name(node.id)} {`);
    body(node, `${indent}  `);
    lines.push(`${indent}}`);
  };
  const body = (node: ChartNode, indent: string) => {
    if (node.initial !== null) lines.push(`${indent}[*] --> ${name(node.initial)}`);
    for (const kid of children(node.id)) declare(kid, indent);
    for (const kid of children(node.id)) if (kid.kind === "final") lines.push(`${indent}${name(kid.id)} --> [*]`);
  };
  const root = chart.nodes.find((node) => node.id === chart.id);
  if (root !== undefined) body(root, "  ");
  lines.push(`  state "${chart.id} (any state)" as ${name(chart.id)}`);
  for (const edge of chart.edges) {
    const times = path.taken.get(edge.id);
    const mark = times === undefined ? "" : ` (taken ${times}×)`;
    const target = name(edge.target ?? edge.source);
    lines.push(`  ${name(edge.source)} --> ${target} : ${edgeLabel(edge).replaceAll(":", "∶")}${mark}`);
  }
  const visited = chart.nodes.filter(
    (node) => node.id !== path.end && node.id !== chart.id && path.visits.has(node.id),
  );
  if (path.visits.size > 0) {
    lines.push("  classDef visited fill:#dbeafe,stroke:#1d4ed8,stroke-width:2px");
    lines.push("  classDef ended fill:#fde68a,stroke:#b45309,stroke-width:3px");
    if (visited.length > 0) lines.push(`  class ${visited.map((node) => name(node.id)).join(",")} visited`);
    if (path.end !== "") lines.push(`  class ${name(path.end)} ended`);
  }
  return `${lines.join("\n")}\n`;
}

/** A state's Mermaid id: its path without the machine's id, dots made underscores. */
export function mermaidId(chart: Chart, id: string): string {
  return id === chart.id ? `${chart.id}_any` : id.slice(chart.id.length + 1).replaceAll(".", "_");
}
