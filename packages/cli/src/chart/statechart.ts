import type { AnyStateMachine, AnyStateNode, AnyTransitionDefinition } from "xstate";

/** One state of the chart, named by its XState id (`agent.executingTools.nextCalls`). */
export interface ChartNode {
  readonly id: string;
  /** The state's own name (`nextCalls`). */
  readonly key: string;
  readonly parent: string | null;
  readonly kind: "root" | "compound" | "parallel" | "atomic" | "final" | "history";
  /** The child entered first, for a compound state. */
  readonly initial: string | null;
}

/** One transition: an `on` entry or an eventless (`always`) one; `target` is `null` for a targetless one (actions only). */
export interface ChartEdge {
  /** `<source>:<event>:<index>`, the transition's place in its state's definition. */
  readonly id: string;
  readonly source: string;
  readonly target: string | null;
  /** The event type, or `always` for an eventless transition. */
  readonly event: string;
  readonly guard: string | null;
  readonly actions: readonly string[];
}

/** A statechart as data, read from a machine's definition: states in document order, then transitions. */
export interface Chart {
  readonly id: string;
  readonly nodes: readonly ChartNode[];
  readonly edges: readonly ChartEdge[];
}

/** The event name used for eventless transitions. */
export const ALWAYS = "always";

/** Walks `machine.root`: every state node, every `on` and `always` transition, with guard and action names. */
export function chartOf(machine: AnyStateMachine): Chart {
  const nodes: ChartNode[] = [];
  const edges: ChartEdge[] = [];
  const visit = (node: AnyStateNode) => {
    nodes.push(nodeOf(node));
    for (const [event, transitions] of Object.entries(node.on)) {
      transitions.forEach((transition, index) => {
        edges.push(edgeOf(transition, event, index));
      });
    }
    (node.always ?? []).forEach((transition, index) => {
      edges.push(edgeOf(transition, ALWAYS, index));
    });
    for (const child of Object.values(node.states)) visit(child);
  };
  visit(machine.root);
  return { id: machine.root.id, nodes, edges };
}

/** The chart's id of a transition that XState reports (in inspection events), found by its place in its source state. */
export function edgeIdOf(transition: AnyTransitionDefinition): string {
  const source: AnyStateNode = transition.source;
  const eventType = String(transition.eventType);
  const list = eventType === "" ? (source.always ?? []) : (source.on[eventType] ?? []);
  return edgeId(source.id, eventType === "" ? ALWAYS : eventType, list.indexOf(transition));
}

function edgeId(source: string, event: string, index: number): string {
  return `${source}:${event}:${index}`;
}

function nodeOf(node: AnyStateNode): ChartNode {
  const parent = node.parent?.id ?? null;
  const kind = parent === null ? "root" : node.type;
  const initial = node.type === "compound" ? (node.initial.target[0]?.id ?? null) : null;
  return { id: node.id, key: parent === null ? node.id : node.key, parent, kind, initial };
}

function edgeOf(transition: AnyTransitionDefinition, event: string, index: number): ChartEdge {
  return {
    id: edgeId(transition.source.id, event, index),
    source: transition.source.id,
    target: transition.target?.[0]?.id ?? null,
    event,
    guard: guardName(transition.guard),
    actions: transition.actions.map(actionName),
  };
}

/** A guard's name; `and`/`or`/`not` of named guards read as `a && b`, `a || b`, `!a`. */
export function guardName(guard: unknown): string | null {
  if (guard === undefined || guard === null) return null;
  if (typeof guard === "string") return guard;
  if (typeof guard === "object" && "type" in guard) return String(guard.type);
  if (typeof guard !== "function") return "guard";
  const parts = "guards" in guard && Array.isArray(guard.guards) ? guard.guards.map(guardName) : null;
  if (parts === null) return guard.name || "inline guard";
  if (guard.name === "not") return `!${parts[0]}`;
  return parts.join(guard.name === "or" ? " || " : " && ");
}

function actionName(action: unknown): string {
  if (typeof action === "string") return action;
  if (typeof action === "object" && action !== null && "type" in action) return String(action.type);
  if (typeof action === "function") return action.name || "inline action";
  return "action";
}

/** The chart's id of the deepest active state of an XState value (`{ executingTools: "nextCalls" }`). */
export function leafIdOf(chart: Chart, value: unknown): string {
  let id = chart.id;
  let current = value;
  while (typeof current === "string" || (typeof current === "object" && current !== null)) {
    const [key, rest] = typeof current === "string" ? [current, null] : (Object.entries(current)[0] ?? [null, null]);
    const child = chart.nodes.find((node) => node.parent === id && node.key === key);
    if (child === undefined) return id;
    id = child.id;
    current = rest;
  }
  return id;
}

/** The ids of a state and all its ancestors, outermost first (`agent`, `agent.executingTools`, ...). */
export function lineageOf(chart: Chart, id: string): string[] {
  const lineage: string[] = [];
  for (let node = chart.nodes.find((n) => n.id === id); node !== undefined; ) {
    lineage.unshift(node.id);
    const parent = node.parent;
    node = parent === null ? undefined : chart.nodes.find((n) => n.id === parent);
  }
  return lineage;
}

/** A state's name for people: its id without the machine's (`executingTools.nextCalls`). */
export function stateName(chart: Chart, id: string): string {
  return id.startsWith(`${chart.id}.`) ? id.slice(chart.id.length + 1) : id;
}
