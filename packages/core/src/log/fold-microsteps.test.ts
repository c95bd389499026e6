import { describe, expect, it } from "vitest";
import type { AnyTransitionDefinition } from "xstate";
import type { StoredEvent } from "../data/index.js";
import { asks, final, MemoryEventStore, runAgent, scriptedModel, toolCall } from "../index.js";
import { makeWeatherRegistry } from "../testing.js";
import { RunFold } from "./run-fold.js";

/** A transition by where it leaves from, the event it takes (`always` for none) and where it goes. */
function named(transition: AnyTransitionDefinition): string {
  const targets = (transition.target ?? []).map((node) => node.id).join(",");
  return `${transition.source.id} ${String(transition.eventType) || "always"} -> ${targets || "(stays)"}`;
}

/** What each event did, as a fold with microsteps reports it after the event. */
type Trace = string[][];

function traceOf(fold: RunFold, event: StoredEvent): string[] {
  fold.apply(event);
  return fold.microsteps.map((step) => `${step.transitions.map(named).join(" + ")} => ${JSON.stringify(step.value)}`);
}

async function logOf(
  runId: string,
  replies: Parameters<typeof scriptedModel>[0],
  maxSteps = 8,
): Promise<StoredEvent[]> {
  const store = new MemoryEventStore();
  const { registry } = makeWeatherRegistry();
  await runAgent("How hot is Pune?", scriptedModel(replies), registry, { store, runId, maxSteps });
  return store.read(runId);
}

describe("a fold's microsteps", () => {
  it("name the transitions each event took, and two folds at once give what each gives alone", async () => {
    const tools = await logOf("a", [
      asks(toolCall("c1", "get_weather", { city: "Pune" }), toolCall("c2", "get_weather", { city: "Delhi" })),
      asks(toolCall("c3", "c_to_f", { celsius: 30 })),
      final("86F."),
    ]);
    const limited = await logOf("b", [asks(toolCall("d1", "get_weather", { city: "Oslo" }))], 1);
    const alone = (events: StoredEvent[]): Trace => {
      const fold = new RunFold({ microsteps: true });
      return events.map((event) => traceOf(fold, event));
    };
    const [first, second] = [alone(tools), alone(limited)];
    const folds = [new RunFold({ microsteps: true }), new RunFold({ microsteps: true })] as const;
    const together: [Trace, Trace] = [[], []];
    for (let index = 0; index < Math.max(tools.length, limited.length); index++) {
      const [a, b] = [tools[index], limited[index]];
      if (b !== undefined) together[1].push(traceOf(folds[1], b));
      if (a !== undefined) together[0].push(traceOf(folds[0], a));
    }
    expect(together).toEqual([first, second]);
    // What the trace says: the start's decision, a reply that asks for a tool, its end, the limit.
    expect(second).toEqual([
      ['agent.budgetCheck always -> agent.callingModel => "callingModel"'],
      [
        'agent.callingModel model.replied -> agent.executingTools => {"executingTools":"nextCalls"}',
        'agent.executingTools.nextCalls always -> agent.executingTools.runningTools => {"executingTools":"runningTools"}',
      ],
      [], // tool.started: the machine does not take it
      [
        'agent.executingTools.runningTools tool.finished -> agent.budgetCheck => "budgetCheck"',
        'agent.budgetCheck always -> agent.stepLimit => "stepLimit"',
      ],
      [], // run.finished
    ]);
    expect(first.at(-2)?.[0]).toMatch(/^agent\.callingModel model\.replied -> agent\.done/);
  });

  it("are kept only when asked for", async () => {
    const events = await logOf("c", [final("30C.")]);
    const fold = new RunFold();
    for (const event of events) fold.apply(event);
    expect(fold.microsteps).toEqual([]);
  });
});
