import { edgeLabel } from "./edge-label.js";
import { NO_PATH, type RunPath } from "./run-path.js";
import type { Chart, ChartNode } from "./statechart.js";

/**
 * The chart in Graphviz DOT: compound states as clusters (edges to or from one attach to its
 * initial child and are clipped at the cluster), final states with a double border, the machine's
 * own transitions from an `any state` node. A targetless transition (one that stays in its state)
 * is written inside its own state, UML's internal transitions, so that it is drawn on the state
 * that owns it, a compound one too. With a run's path, visited states are filled, taken
 * transitions drawn thick with their count.
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
      lines.push(`${indent}"${node.id}" [${nodeAttributes(chart, node, path)}];`);
      return;
    }
    const style = path.visits.has(node.id) ? 'style="rounded,filled"; fillcolor="#eff6ff";' : "style=rounded;";
    const label = quote(stateLabel(chart, node, path));
    lines.push(`${indent}subgraph "cluster_${node.id}" {`, `${indent}  label="${label}"; labeljust=l; ${style}`);
    for (const kid of kids) declare(kid, `${indent}  `);
    lines.push(`${indent}}`);
  };
  for (const kid of children(chart.id)) declare(kid, "  ");
  const root = chart.nodes.find((node) => node.id === chart.id);
  if (root?.initial) lines.push(`  "__start" -> "${entryOf(chart, root.initial)}";`);
  for (const edge of chart.edges) {
    if (edge.target !== null)
      lines.push(`  ${edgeLine(chart, edge.source, edge.target, edgeLabel(edge), path.taken.get(edge.id))};`);
  }
  lines.push("}");
  return `${lines.join("\n")}\n`;
}

/** A state's name, then one line per internal (targetless) transition, with its count on a run's path. */
function stateLabel(chart: Chart, node: ChartNode, path: RunPath): string {
  const internal = chart.edges
    .filter((edge) => edge.source === node.id && edge.target === null)
    .map((edge) => {
      const times = path.taken.get(edge.id);
      return `${edgeLabel(edge)}${times === undefined ? "" : ` (×${times})`}`;
    });
  return [node.key, ...internal].join("\n");
}

function quote(text: string): string {
  return text.replaceAll('"', '\\"').replaceAll("\n", "\\n");
}

function nodeAttributes(chart: Chart, node: ChartNode, path: RunPath): string {
  const attributes = [`label="${quote(stateLabel(chart, node, path))}"`];
  if (node.kind === "final") attributes.push("peripheries=2");
  if (path.visits.has(node.id)) attributes.push(`fillcolor="${node.id === path.end ? "#fde68a" : "#dbeafe"}"`);
  if (node.id === path.end) attributes.push("penwidth=3");
  return attributes.join(", ");
}

function edgeLine(chart: Chart, source: string, target: string, label: string, times?: number): string {
  const from = entryOf(chart, source);
  const to = entryOf(chart, target);
  const attributes = [`label="${label.replaceAll('"', '\\"')}${times === undefined ? "" : ` (×${times})`}"`];
  if (from !== source && source !== chart.id) attributes.push(`ltail="cluster_${source}"`);
  if (to !== target) attributes.push(`lhead="cluster_${target}"`);
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
