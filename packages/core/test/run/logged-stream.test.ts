import { describe, expect, it } from "vitest";
import {
  type AgentStreamEvent,
  asks,
  askUserTool,
  final,
  MemoryEventStore,
  resumeAgent,
  runAgent,
  scriptedModel,
  ToolRegistry,
  toolCall,
} from "../../src/index.js";
import type { StoredEvent } from "../../src/store.js";

/** The events a listener heard as logged, the run's own (no `origin`), in order. */
function loggedOf(heard: readonly AgentStreamEvent[]): unknown[] {
  return heard.flatMap((event) => (event.type === "logged" && event.origin === undefined ? [event.event] : []));
}

/** A stored event as it was before the store stamped it. */
function unstamped({ seq: _seq, at: _at, hash: _hash, ...event }: StoredEvent): unknown {
  return event;
}

/** A registry with an ask-user tool and a tool that asks a question while it runs. */
function askingTools(): ToolRegistry {
  const registry = new ToolRegistry();
  registry.add(askUserTool());
  registry.register("book_room", "Books a room.", { type: "object", properties: {} }, async (_args, { ask }) => {
    const { city } = (await ask("Which city?", {
      type: "object",
      properties: { city: { type: "string" } },
      required: ["city"],
    })) as { city: string };
    return { booked: city };
  });
  return registry;
}

describe("the stream tells every logged event once, as logged, in the log's order", () => {
  it("a prepared step, a question asked by a tool and one asked by the model, and their answers, across a pause", async () => {
    const store = new MemoryEventStore();
    const script = () => [
      asks(toolCall("q1", "ask_user", { question: "Which floor?" }), toolCall("b1", "book_room", {})),
      final("Booked on floor 3 in Lima."),
    ];
    const prepareStep = ({ step }: { step: number }) => (step === 1 ? { toolChoice: "required" as const } : undefined);
    const heard: AgentStreamEvent[] = [];
    const paused = await runAgent("Book me a room.", scriptedModel(script()), askingTools(), {
      store,
      runId: "r",
      prepareStep,
      onEvent: (event) => heard.push(event),
    });
    expect(paused.status).toBe("awaiting_input");
    const resumed = await resumeAgent("r", scriptedModel(script().slice(1)), askingTools(), {
      store,
      prepareStep,
      answers: { q1: 3, b1: { city: "Lima" } },
      onEvent: (event) => heard.push(event),
    });
    expect(resumed.status).toBe("done");
    const log = (await store.read("r")).map(unstamped);
    expect(loggedOf(heard)).toEqual(log);
    const types = log.map((event) => (event as { type: string }).type);
    for (const type of ["step.prepared", "tool.asked", "question.answered", "tool.finished", "run.finished"]) {
      expect(types).toContain(type);
    }
  });

  it("a run without a store tells the same events as one with a store logs", async () => {
    const store = new MemoryEventStore();
    const script = () => [asks(toolCall("b1", "book_room", {})), final("Asked.")];
    const withStore: AgentStreamEvent[] = [];
    const without: AgentStreamEvent[] = [];
    await runAgent("Book.", scriptedModel(script()), askingTools(), {
      store,
      runId: "s",
      onEvent: (event) => withStore.push(event),
    });
    await runAgent("Book.", scriptedModel(script()), askingTools(), { onEvent: (event) => without.push(event) });
    const log = (await store.read("s")).map(unstamped);
    expect(loggedOf(withStore)).toEqual(log);
    expect(loggedOf(without)).toEqual(log);
  });
});
