import { createInspector, type StatelyInspectionEvent } from "@statelyai/inspect";
import { describe, expect, it, vi } from "vitest";
import type { AnyStateNode } from "xstate";
import { hangGuard } from "../../../../hang-guard.js";
import { agentMachine, runAgent, scriptedModel } from "../../src/index.js";
import { weatherScript as happyScript, makeWeatherRegistry, WEATHER_TASK as TASK } from "../../src/testing.js";

interface Definition {
  readonly id?: string;
  readonly states?: Record<string, Definition>;
  readonly on?: Record<string, unknown>;
  readonly always?: unknown;
}

/** Every state path and every transition (`state --event--> target`) of a machine config. */
function walkDefinition(node: Definition, path: string[] = []): { states: string[]; transitions: string[] } {
  const states: string[] = [];
  const transitions: string[] = [];
  const here = path.join(".") || "(root)";
  const edges = (event: string, value: unknown) => {
    for (const edge of [value].flat()) {
      const target = typeof edge === "string" ? edge : (edge as { target?: string } | undefined)?.target;
      transitions.push(`${here} --${event}--> ${target ?? "(self)"}`);
    }
  };
  for (const [event, value] of Object.entries(node.on ?? {})) edges(event, value);
  if (node.always !== undefined) edges("always", node.always);
  for (const [name, child] of Object.entries(node.states ?? {})) {
    states.push([...path, name].join("."));
    const inner = walkDefinition(child, [...path, name]);
    states.push(...inner.states);
    transitions.push(...inner.transitions);
  }
  return { states, transitions };
}

/** Every state path of the machine's own state nodes, the source of truth. */
function machineStates(node: AnyStateNode): string[] {
  const own = node.path.length > 0 ? [node.path.join(".")] : [];
  return [...own, ...Object.values(node.states).flatMap(machineStates)];
}

describe("Stately inspector", () => {
  it("receives the machine definition naming every state and transition of agentMachine", async () => {
    const sent: StatelyInspectionEvent[] = [];
    const inspector = createInspector({ send: (event) => sent.push(event) });
    inspector.start();
    const { registry } = makeWeatherRegistry();
    const result = await runAgent(TASK, scriptedModel(happyScript()), registry, { inspect: inspector.inspect });
    expect(result.status).toBe("done");

    // The inspector hands events on when the event loop is idle.
    const root = await vi.waitFor(
      () => {
        const found = sent.find((event) => event.type === "@xstate.actor" && event.name === "agent");
        if (found === undefined) throw new Error("no @xstate.actor event for the agent yet");
        return found;
      },
      { timeout: hangGuard(45_000) },
    );
    const definition = JSON.parse(String((root as { definition?: string }).definition)) as Definition;
    const carried = walkDefinition(definition);
    expect(carried.states.sort()).toEqual(machineStates(agentMachine.root).sort());
    expect(carried.states).toEqual(
      expect.arrayContaining([
        "budgetCheck",
        "callingModel",
        "executingTools.runningTools",
        "executingTools.awaitingDecision",
        "done",
        "refused",
        "cancelled",
      ]),
    );
    expect(carried.transitions.sort()).toEqual(walkDefinition(agentMachine.config as Definition).transitions.sort());
    expect(carried.transitions).toEqual(
      expect.arrayContaining([
        "budgetCheck --always--> stepLimit",
        "budgetCheck --always--> callingModel",
        "callingModel --model.replied--> executingTools",
        "executingTools.runningTools --tool.finished--> nextCalls",
        "executingTools.awaitingDecision --approval.decided--> nextCalls",
        "(root) --run.cancelled--> .cancelled",
      ]),
    );
  });

  it("sees every event and snapshot of the run", async () => {
    const sent: StatelyInspectionEvent[] = [];
    const inspector = createInspector({ send: (event) => sent.push(event) });
    inspector.start();
    const { registry } = makeWeatherRegistry();
    await runAgent(TASK, scriptedModel(happyScript()), registry, { inspect: inspector.inspect });
    const values = () =>
      sent.flatMap((event) =>
        event.type === "@xstate.snapshot" ? [JSON.stringify((event.snapshot as { value?: unknown }).value)] : [],
      );
    // The inspector hands events on when the event loop is idle: wait for the final snapshot.
    await vi.waitFor(() => expect(values().at(-1)).toBe('"done"'), { timeout: hangGuard(45_000) });
    const rootEvents = sent.filter((event) => event.type === "@xstate.event" && event.event.type.includes("."));
    expect(rootEvents.map((event) => (event.type === "@xstate.event" ? event.event.type : ""))).toEqual(
      expect.arrayContaining(["model.replied", "tool.finished"]),
    );
  });
});
