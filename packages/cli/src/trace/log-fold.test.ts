import { readdirSync, readFileSync } from "node:fs";
import { basename, join } from "node:path";
import { replayRun } from "@agentloop/core";
import { describe, expect, it } from "vitest";
import {
  asks,
  continueAgent,
  final,
  MemoryEventStore,
  type ModelReply,
  parseEventLog,
  positionOf as positionIn,
  runAgent,
  type StoredEvent,
  scriptedModel,
  ToolRegistry,
  toolCall,
} from "../core-api.js";
import { type FoldStep, LogFold } from "./log-fold.js";
import { traceRun } from "./run-trace.js";

const GOLDEN = join(import.meta.dirname, "../../../core/test/fixtures/golden");

function weatherTools(): ToolRegistry {
  const registry = new ToolRegistry();
  registry.register(
    "get_weather",
    "Weather.",
    { type: "object", properties: { city: { type: "string" } } },
    async ({ city }: { city: string }) => {
      // Pune answers last: the calls of one reply finish out of call order.
      await new Promise((resolve) => setTimeout(resolve, city === "Pune" ? 30 : 5));
      return { city, celsius: 30 };
    },
  );
  return registry;
}

async function logOf(replies: ModelReply[], more: ModelReply[] = []): Promise<StoredEvent[]> {
  const store = new MemoryEventStore();
  const registry = weatherTools();
  await runAgent("t", scriptedModel(replies), registry, { store, runId: "r" });
  if (more.length > 0) await continueAgent("r", "and now?", scriptedModel(more), registry, { store });
  return store.read("r");
}

const weatherLog = () => logOf([asks(toolCall("c1", "get_weather", { city: "Pune" })), final("30")]);
const PARALLEL = [
  asks(toolCall("p", "get_weather", { city: "Pune" }), toolCall("d", "get_weather", { city: "Delhi" })),
  final("Both 30."),
];

/** Where a fold throws: the error's position, or null when it does not throw. */
function positionOf(run: () => unknown): number | string | null {
  try {
    run();
    return null;
  } catch (error) {
    return (error as { position?: number }).position ?? "no position";
  }
}

describe("LogFold folds what core's replay folds, to the same result", () => {
  it.each(readdirSync(GOLDEN).filter((file) => file.endsWith(".jsonl")))("the golden log %s", (file) => {
    // Read as a store reads them: JSON's nulls become the Infinity they stand for.
    const lines = readFileSync(join(GOLDEN, file), "utf8").trimEnd().split("\n");
    const events = parseEventLog(
      basename(file, ".jsonl"),
      lines.map((line) => JSON.parse(line) as unknown),
    );
    const trace = traceRun(events, "golden");
    const replay = replayRun(events, { runId: "golden" });
    const end = positionIn(replay.snapshot);
    expect(trace.result).toEqual(replay.result);
    expect(trace.steps).toBe(end.steps);
    expect(trace.tokens).toBe(end.tokens);
    expect(trace.entries.flatMap((entry) => entry.messages)).toEqual([...end.messages]);
    expect(trace.waiting).toEqual(end.waiting);
  });

  it("calls of one reply run at once, finish out of order, and each is tracked by its id", async () => {
    const events = await logOf(PARALLEL);
    const types = events.map((event) =>
      event.type.startsWith("tool.") ? `${event.type}:${"callId" in event ? event.callId : ""}` : event.type,
    );
    expect(types.slice(2, 6)).toEqual(["tool.started:p", "tool.started:d", "tool.finished:d", "tool.finished:p"]);
    const trace = traceRun(events, "r");
    expect(trace.result).toEqual(replayRun(events, { runId: "r" }).result);
    expect(trace.entries[3]?.state).toBe("agent.executingTools.runningTools");
    // Tool messages come in call order, each when every call before it is answered.
    expect(trace.entries[4]?.messages).toEqual([]);
    expect(trace.entries[5]?.messages.map((m) => (m.role === "tool" ? m.toolCallId : m.role))).toEqual(["p", "d"]);
  });

  it("a conversation's turns: user.messaged after run.finished starts the next, counted from 1", async () => {
    const events = await logOf([final("Hello.")], [final("Still here.")]);
    expect(events.map((event) => event.type)).toEqual([
      "run.started",
      "model.replied",
      "run.finished",
      "user.messaged",
      "model.replied",
      "run.finished",
    ]);
    const trace = traceRun(events, "r");
    expect(trace.result).toEqual(replayRun(events, { runId: "r" }).result);
    expect(trace.turns).toBe(2);
    expect(trace.entries.map((entry) => entry.turn)).toEqual([1, 1, 1, 2, 2, 2]);
    const next = trace.entries[3];
    expect(next?.messages).toEqual([{ role: "user", content: "and now?" }]);
    expect(next?.moves.map((move) => move.state)).toEqual(["agent.budgetCheck", "agent.callingModel"]);
    expect(trace.notes.get(3)?.map((note) => note.kind)).toEqual(["turn"]);
  });

  it("a refusal ends the run in refused", async () => {
    const events = await logOf([{ content: "I cannot help with that.", toolCalls: [], finishReason: "refusal" }]);
    const trace = traceRun(events, "r");
    expect(trace.state).toBe("agent.refused");
    expect(trace.result?.status).toBe("refused");
  });
});

/** Damaged logs: each is a valid log with one thing wrong. */
const DAMAGE: readonly [string, () => Promise<StoredEvent[]>, (events: StoredEvent[]) => StoredEvent[]][] = [
  [
    "a tool.finished without its tool.started",
    weatherLog,
    (events) => events.filter((event) => event.type !== "tool.started"),
  ],
  [
    "a tool.started naming another tool",
    weatherLog,
    (events) => events.map((event) => (event.type === "tool.started" ? { ...event, name: "other" } : event)),
  ],
  [
    "a second run.started",
    weatherLog,
    (events) => [...events.slice(0, 2), events[0] as StoredEvent, ...events.slice(2)],
  ],
  [
    "a run.finished that records another outcome",
    weatherLog,
    (events) =>
      events.map((event) =>
        event.type === "run.finished" ? { ...event, outcome: { ...event.outcome, steps: 9 } } : event,
      ),
  ],
  ["an event after run.finished", weatherLog, (events) => [...events, events[1] as StoredEvent]],
  ["a run.finished before the end", weatherLog, (events) => [...events.slice(0, 2), events.at(-1) as StoredEvent]],
  [
    "a reply where a result is due",
    weatherLog,
    (events) => [...events.slice(0, 3), events[1] as StoredEvent, ...events.slice(3)],
  ],
  [
    "a call started twice",
    () => logOf(PARALLEL),
    (events) => [...events.slice(0, 3), events[2] as StoredEvent, ...events.slice(3)],
  ],
  [
    "a user.messaged before the turn's run.finished",
    () => logOf([final("Hello.")], [final("Again.")]),
    (events) => events.filter((_, index) => index !== 2),
  ],
  [
    "a user.messaged in the middle of a turn",
    weatherLog,
    (events) => [
      ...events.slice(0, 2),
      { ...events[1], type: "user.messaged", content: "hi" } as StoredEvent,
      ...events.slice(2),
    ],
  ],
  [
    "a second turn's call that reuses an id of the first",
    () => logOf([asks(toolCall("c1", "get_weather", { city: "Delhi" })), final("30")], [final("ok")]),
    (events) =>
      events.map((event, index) =>
        index === 7 && event.type === "model.replied"
          ? { ...event, reply: asks(toolCall("c1", "get_weather", { city: "Pune" })) }
          : event,
      ),
  ],
];

describe("LogFold shares nothing between folds", () => {
  it("two golden logs folded event by event at once trace as each does alone", () => {
    const read = (file: string) =>
      parseEventLog(
        basename(file, ".jsonl"),
        readFileSync(join(GOLDEN, file), "utf8")
          .trimEnd()
          .split("\n")
          .map((line) => JSON.parse(line) as unknown),
      );
    const logs = [read("v2-parallel.jsonl"), read("v4-steering.jsonl")] as const;
    const alone = logs.map((events) => {
      const fold = new LogFold();
      return events.map((event) => fold.apply(event));
    });
    const folds = [new LogFold(), new LogFold()] as const;
    const together: FoldStep[][] = [[], []];
    const longest = Math.max(...logs.map((events) => events.length));
    for (let index = 0; index < longest; index++) {
      for (const which of [1, 0] as const) {
        const event = logs[which][index];
        if (event !== undefined) together[which]?.push(folds[which].apply(event));
      }
    }
    expect(together).toEqual(alone);
    expect(alone.flat().some((step) => step.moves.some((move) => move.edges.length > 0))).toBe(true);
  });
});

describe("LogFold refuses what core's replay refuses, at the same position", () => {
  it.each(DAMAGE)("%s", async (_what, log, damage) => {
    const events = damage(await log()).map((event, seq) => ({ ...event, seq }));
    const ours = positionOf(() => traceRun(events, "r"));
    expect(ours).not.toBeNull();
    expect(ours).toBe(positionOf(() => replayRun(events, { runId: "r" })));
  });
});
