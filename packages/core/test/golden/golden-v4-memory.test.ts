import { describe, expect, it } from "vitest";
import {
  type MemoryStore,
  memoryTools,
  quotedMemories,
  replayRun,
  resumeAgent,
  ToolRegistry,
} from "../../src/index.js";
import { goldenStore, never } from "./golden-store.js";

// A golden log of schema 4, written once and never regenerated: a run with memory recalls two of
// Ada's memories before its first model call, its model remembers a third with the remember tool
// (logged as memory.written before the call's result), then answers.

/** A memory store that must never be reached: the log holds what it gave. */
const unreachable: MemoryStore = {
  put: () => Promise.reject(new Error("the memory store was written")),
  get: () => Promise.reject(new Error("the memory store was read")),
  search: () => Promise.reject(new Error("the memory store was searched")),
  delete: () => Promise.reject(new Error("the memory store was changed")),
};

describe("golden log v4-memory", () => {
  it("replays to its recorded result: the recall shown as quoted data, the write, the answer", async () => {
    const events = await goldenStore().read("v4-memory");
    expect(events.map((event) => event.type)).toEqual([
      "run.started",
      "memory.recalled",
      "model.replied",
      "tool.started",
      "memory.written",
      "tool.finished",
      "model.replied",
      "run.finished",
    ]);
    expect(events[1]).toMatchObject({ scope: { resource: "ada" }, hits: [{ key: "city" }, { key: "unit" }] });
    const replay = replayRun(events);
    expect(replay.result).toMatchObject({ status: "done", answer: "Noted: Miso. In Pune it is 86°F.", steps: 2 });
    const quoted = quotedMemories(String(replay.result?.messages[2]?.content));
    expect(quoted).toEqual([
      { key: "city", value: "Ada lives in Pune" },
      { key: "unit", value: "Ada reads temperatures in Fahrenheit" },
    ]);
  });

  it("resumed as it is, gives its result again without the model, the tools or the memory store", async () => {
    const store = goldenStore();
    const registry = new ToolRegistry().add(...memoryTools(unreachable, { resource: "ada" }));
    const result = await resumeAgent("v4-memory", never, registry, { store, memory: { store: unreachable } });
    expect(result).toMatchObject({ status: "done", answer: "Noted: Miso. In Pune it is 86°F." });
  });
});
