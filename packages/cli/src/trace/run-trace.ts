import { type AgentResult, agentMachine, type Message, replayRun } from "@agentloop/core";
import { type AgentContext, type AgentEvent, messagesOf, type RunSettings } from "@agentloop/core/machine";
import type { StoredEvent } from "@agentloop/core/store";
import { createActor, type InspectionEvent } from "xstate";
import { type Chart, chartOf, edgeIdOf, leafIdOf, lineageOf } from "../chart/statechart.js";

/** One microstep of the machine: the transitions it took, the state it is in after them, the states it entered. */
export interface Move {
  readonly edges: readonly string[];
  /** The deepest active state after the move (a chart node id). */
  readonly state: string;
  readonly entered: readonly string[];
}

/** What one logged event did to the machine. */
export interface TraceEntry {
  readonly event: StoredEvent;
  /** Empty for events the machine does not take (`tool.started`, `run.finished`) and for events that change no state. */
  readonly moves: readonly Move[];
  /** The messages this event appended to the list. */
  readonly messages: readonly Message[];
  readonly state: string;
  readonly steps: number;
  readonly tokens: number;
}

/** A run rebuilt from its log: what every event did, which states were visited and which transitions taken. */
export interface RunTrace {
  readonly chart: Chart;
  readonly settings: RunSettings;
  /** One per logged event, from `run.started` on. */
  readonly entries: readonly TraceEntry[];
  /** Times each state was entered, by chart node id. */
  readonly visits: ReadonlyMap<string, number>;
  /** Times each transition was taken, by chart edge id. */
  readonly taken: ReadonlyMap<string, number>;
  /** The deepest state the run is in at the end of the log. */
  readonly state: string;
  readonly context: AgentContext;
  /** The replayed `AgentResult`, or `null` for a run that has not finished (interrupted, or waiting for a decision). */
  readonly result: AgentResult | null;
}

/**
 * Replays a log through `agentMachine` itself, recording its microsteps from XState's inspection:
 * no model is called and no tool runs. The log is checked first by core's `replayRun`, which throws
 * `EventLogError` (naming the run and the position) for a log that does not fit the machine.
 */
export function traceRun(events: readonly StoredEvent[], runId?: string): RunTrace {
  const replay = replayRun(events, runId === undefined ? {} : { runId });
  const [started] = events;
  if (started?.type !== "run.started") throw new Error("replayRun accepted a log without run.started");
  const chart = chartOf(agentMachine);
  const visits = new Map<string, number>();
  const taken = new Map<string, number>();
  const count = (map: Map<string, number>, key: string) => map.set(key, (map.get(key) ?? 0) + 1);
  let active = new Set<string>();
  let moves: Move[] = [];
  const move = (edges: string[], state: string, reentered: readonly string[]) => {
    const lineage = lineageOf(chart, state);
    const entered = lineage.filter((id) => !active.has(id) || reentered.includes(id));
    for (const id of entered) count(visits, id);
    for (const edge of edges) count(taken, edge);
    active = new Set(lineage);
    moves.push({ edges, state, entered });
  };
  const inspect = (inspection: InspectionEvent) => {
    if (inspection.type !== "@xstate.microstep" || inspection.actorRef.sessionId !== inspection.rootId) return;
    const targets = inspection._transitions.flatMap((t) => (t.target ?? []).map((node) => String(node.id)));
    move(inspection._transitions.map(edgeIdOf), leafIdOf(chart, snapshotValue(inspection.snapshot)), targets);
  };
  move([], initialLeaf(chart), []);
  // The move out of the initial state is reported while the actor is created.
  const input = { settings: started.settings, schemaVersion: started.schemaVersion };
  const actor = createActor(agentMachine, { input, inspect });
  actor.start();
  const entries: TraceEntry[] = [];
  let shown = 0;
  for (const event of events) {
    const { seq: _seq, at: _at, hash: _hash, ...machineEvent } = event;
    const lifecycle = ["run.started", "tool.started", "run.finished", "user.messaged"];
    if (!lifecycle.includes(machineEvent.type) && actor.getSnapshot().status === "active") {
      actor.send(machineEvent as AgentEvent);
    }
    const { context } = actor.getSnapshot();
    const messages = messagesOf(context.transcript);
    entries.push({
      event,
      moves,
      messages: messages.slice(shown),
      state: [...active].at(-1) ?? chart.id,
      ...tally(context),
    });
    shown = messages.length;
    moves = [];
  }
  actor.stop();
  return {
    chart,
    settings: started.settings,
    entries,
    visits,
    taken,
    state: [...active].at(-1) ?? chart.id,
    context: replay.context,
    result: replay.result,
  };
}

function tally(context: AgentContext): { steps: number; tokens: number } {
  return { steps: context.steps, tokens: context.tokens };
}

function initialLeaf(chart: Chart): string {
  let id = chart.id;
  for (let node = chart.nodes.find((n) => n.id === id); node?.initial; node = chart.nodes.find((n) => n.id === id)) {
    id = node.initial;
  }
  return id;
}

function snapshotValue(snapshot: unknown): unknown {
  return typeof snapshot === "object" && snapshot !== null && "value" in snapshot ? snapshot.value : undefined;
}
