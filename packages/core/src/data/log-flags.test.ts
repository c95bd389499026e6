import { describe, expect, it } from "vitest";
import { asks, final, replayRun, runAgent, scriptedModel, ToolRegistry, toolCall } from "../index.js";
import { Journal } from "../log/journal.js";
import { messagesOf } from "../machine.js";
import {
  END_STATUSES,
  EVENT_LOG_SCHEMA_VERSION,
  LOG_FLAGS,
  logFlags,
  MemoryEventStore,
  OLDEST_EVENT_LOG_SCHEMA_VERSION,
  parseEventLog,
  type RunEvent,
  type RunSettings,
} from "../store.js";
import { AGENT_STATUSES } from "./types.js";

const settings: RunSettings = {
  task: "How hot is Pune?",
  system: "Use the tools.",
  maxSteps: 4,
  tokenBudget: 4000,
  tools: [{ name: "get_weather", description: "Weather.", parameters: { type: "object" } }],
};

/** A log of schema `version` whose one result is `finished`, hashed as that version hashes. */
async function logOf(version: number, finished: RunEvent) {
  const store = new MemoryEventStore();
  const journal = new Journal(store, "r", [], { schemaVersion: version });
  await journal.commit({ type: "run.started", schemaVersion: version, settings });
  await journal.commit({ type: "model.replied", reply: asks(toolCall("c1", "get_weather", { city: "Pune" })) });
  await journal.commit({ type: "tool.started", callId: "c1", name: "get_weather" });
  await journal.commit(finished);
  return store.read("r");
}

const toolMessages = (events: Awaited<ReturnType<typeof logOf>>) =>
  messagesOf(replayRun(events).context.transcript).filter((m) => m.role === "tool");

describe("log flags", () => {
  it("each flag comes with a version this code reads, and is resolved once per version", () => {
    for (const since of Object.values(LOG_FLAGS)) {
      expect(since).toBeGreaterThan(OLDEST_EVENT_LOG_SCHEMA_VERSION);
      expect(since).toBeLessThanOrEqual(EVENT_LOG_SCHEMA_VERSION);
    }
    expect(Object.values(logFlags(1)).every((on) => !on)).toBe(true);
    expect(Object.values(logFlags(EVENT_LOG_SCHEMA_VERSION)).every((on) => on)).toBe(true);
    expect(logFlags(2)).toMatchObject({ hashChain: true, errorFlagOnMessages: true, toolErrorLogged: false });
    expect(logFlags(2)).toBe(logFlags(2));
    expect(Object.isFrozen(logFlags(2))).toBe(true);
  });

  it("a live run logs whether each observation is an error, as data on tool.finished", async () => {
    const store = new MemoryEventStore();
    const registry = new ToolRegistry();
    registry.register("get_weather", "Weather.", { type: "object" }, () => ({ celsius: 30 }));
    const model = scriptedModel([asks(toolCall("ok", "get_weather"), toolCall("bad", "nope")), final("30.")]);
    await runAgent("How hot is Pune?", model, registry, { store, runId: "r" });
    const finished = (await store.read("r")).flatMap((e) => (e.type === "tool.finished" ? [e] : []));
    expect(finished.map(({ callId, isError }) => [callId, isError])).toEqual([
      ["ok", undefined],
      ["bad", true],
    ]);
    expect(Object.keys(finished[0] ?? {})).toEqual(["seq", "at", "type", "callId", "content", "hash"]);
  });

  it("from schema 3 on an error is what tool.finished says, not what its text starts with", async () => {
    const text = { type: "tool.finished", callId: "c1", content: "ERROR: looks like one" } as const;
    expect(toolMessages(await logOf(3, text))[0]).not.toHaveProperty("isError");
    const flagged = { type: "tool.finished", callId: "c1", content: "no station", isError: true } as const;
    expect(toolMessages(await logOf(3, flagged))[0]).toMatchObject({ content: "no station", isError: true });
  });

  it("older logs replay as they ran: schema 2 reads the text, schema 1 marks nothing", async () => {
    const text = { type: "tool.finished", callId: "c1", content: "ERROR: no station" } as const;
    expect(toolMessages(await logOf(2, text))[0]).toMatchObject({ isError: true });
    expect(toolMessages(await logOf(1, text))[0]).not.toHaveProperty("isError");
  });

  it("refuses an isError that is not true", async () => {
    const values = (await logOf(3, { type: "tool.finished", callId: "c1", content: "{}" })).map((e) =>
      e.type === "tool.finished" ? { ...e, isError: "yes" } : e,
    );
    expect(() => parseEventLog("r", values)).toThrow(/event 3 has an isError that is not true/);
  });
});

describe("statuses", () => {
  it("are listed once: the log's run.finished takes every status but the pauses, and refuses the pauses", () => {
    expect([...END_STATUSES, "awaiting_approval", "awaiting_input"].sort()).toEqual([...AGENT_STATUSES].sort());
    const at = "2026-12-03T00:00:00.000Z";
    // Schema 1 has no hashes: the shapes alone are checked.
    const endedWith = (status: string) => [
      { seq: 0, at, type: "run.started", schemaVersion: 1, settings },
      { seq: 1, at, type: "run.finished", outcome: { status, answer: null, steps: 0, tokens: 0 } },
    ];
    for (const status of END_STATUSES) expect(parseEventLog("r", endedWith(status))).toHaveLength(2);
    expect(() => parseEventLog("r", endedWith("awaiting_approval"))).toThrow(/unknown status "awaiting_approval"/);
    expect(() => parseEventLog("r", endedWith("awaiting_input"))).toThrow(/unknown status "awaiting_input"/);
  });
});
