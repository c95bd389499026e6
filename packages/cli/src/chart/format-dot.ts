import { edgeLabel } from "./edge-label.js";
import { NO_PATH, type RunPath } from "./run-path.js";
import type { Chart, ChartNode } from "./statechart.js";

/**
 * The chart in Graphviz DOT: compound states as clusters (edges to or from one attach to its
 * initial child), final states as double circles, the machine's own transitions from an `any
 * state` node. With a run's path, visited states are filled, taken transitions drawn thick with
 * their count.
 */
export function toDot(chart: Chart, path: RunPath = NO_PATH): string {
  const lines = [
    `digraph "${chart.id}" {`,
    "  compound=true; rankdir=LR;",
    '  node [shape=box, style="rounded,filled", fillcolor=white, fontname="Helvetica"];',
    '  edge [fontname="Helvetica", fontsize=10];',
    `  "__start" [shape=point, width=0.15];`,
    `  "${chart.id}" [label="${chart.id} (any state)", shape=plaintext, style=""];`,
  ];
  const children = (id: string) => chart.nodes.filter((node) => node.parent === id);
  const declare = (node: ChartNode, indent: string) => {
    const kids = children(node.id);
    if (kids.length === 0) {
      lines.push(`${indent}"${node.id}" [${nodeAttributes(node, path)}];`);
      return;
    }
    const style = path.visits.has(node.id) ? 'style="rounded,filled"; fillcolor="#eff6ff";' : "style=rounded;";
    lines.push(`${indent}subgraph "cluster_${node.id}" {`, `${indent}  label="${node.key}"; ${style}`);
    for (const kid of kids) declare(kid, `${indent}  `);
    lines.push(`${indent}}`);
  };
  for (const kid of children(chart.id)) declare(kid, "  ");
  const root = chart.nodes.find((node) => node.id === chart.id);
  if (root?.initial) lines.push(`  "__start" -> "${entryOf(chart, root.initial)}";`);
  for (const edge of chart.edges)
    lines.push(`  ${edgeLine(chart, edge.source, edge.target, edgeLabel(edge), path.taken.get(edge.id))};`);
  lines.push("}");
  return `${lines.join("\n")}\n`;
}

function nodeAttributes(node: ChartNode, path: RunPath): string {
  const attributes = [`label="${node.key}"`];
  if (node.kind === "final") attributes.push("peripheries=2");
  if (path.visits.has(node.id)) attributes.push(`fillcolor="${node.id === path.end ? "#fde68a" : "#dbeafe"}"`);
  if (node.id === path.end) attributes.push("penwidth=3");
  return attributes.join(", ");
}

function edgeLine(chart: Chart, source: string, target: string | null, label: string, times?: number): string {
  const from = entryOf(chart, source);
  const to = entryOf(chart, target ?? source);
  const attributes = [`label="${label.replaceAll('"', '\\"')}${times === undefined ? "" : ` (×${times})`}"`];
  if (from !== source && source !== chart.id && target !== null) attributes.push(`ltail="cluster_${source}"`);
  if (target !== null && to !== target) attributes.push(`lhead="cluster_${target}"`);
  if (times !== undefined) attributes.push('color="#c2410c"', "penwidth=2.5", 'fontcolor="#c2410c"');
  return `"${from}" -> "${to}" [${attributes.join(", ")}]`;
}

/** The node an edge to or from a state attaches to: the state itself, or for a compound state its initial leaf. */
function entryOf(chart: Chart, id: string): string {
  let node = chart.nodes.find((n) => n.id === id);
  while (node?.initial && node.id !== chart.id) {
    const initial: string = node.initial;
    node = chart.nodes.find((n) => n.id === initial);
  }
  return node?.id ?? id;
}
