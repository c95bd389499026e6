import { describe, expect, it } from "vitest";
import type { ToolCall, ToolOutcomeKind } from "../data/index.js";
import { asks, final, resumeAgent, runAgent, scriptedModel, ToolRegistry, toolCall } from "../index.js";
import { Journal } from "../log/journal.js";
import { logFlags, MemoryEventStore, type RunEvent, type RunSettings, toolFailureOf } from "../store.js";

const CITY = { type: "object", properties: { city: { type: "string" } }, required: ["city"] } as const;

/** A registry with one tool of each ending: a result, a throw, a value JSON cannot carry, a call that never settles. */
function registry(): ToolRegistry {
  const tools = new ToolRegistry();
  tools.register("weather", "Weather.", CITY, ({ city }) => ({ city, celsius: 30 }));
  tools.register("broken", "Throws.", { type: "object" }, () => {
    throw new Error("down");
  });
  tools.register("big", "Returns a BigInt.", { type: "object" }, () => 1n);
  tools.register("stuck", "Never settles.", { type: "object" }, () => new Promise(() => {}), { timeoutMs: 1 });
  return tools;
}

function settingsOf(tools: ToolRegistry): RunSettings {
  return { task: "Weather?", system: "Use the tools.", maxSteps: 4, tokenBudget: 4000, tools: tools.specs() };
}

const calls: readonly [ToolCall, ToolOutcomeKind][] = [
  [toolCall("c1", "weather", { city: "Pune" }), "ok"],
  [toolCall("c2", "weather", { city: 7 }), "invalid-args"],
  [{ id: "c3", name: "weather", args: {}, rawArgs: "{city" }, "invalid-args"],
  [toolCall("c4", "broken"), "threw"],
  [toolCall("c5", "big"), "threw"],
  [toolCall("c6", "stuck"), "timeout"],
  [toolCall("c7", "nope"), "unknown-tool"],
  [{ id: "c8", name: "nope", args: {}, rawArgs: "{" }, "unknown-tool"],
];

describe("ToolRegistry.executeCall's outcome", () => {
  it("says how each call ended, with the observation execute gives, byte for byte", async () => {
    const tools = registry();
    for (const [call, kind] of calls) {
      const outcome = await tools.executeCall(call);
      expect(outcome.kind, call.id).toBe(kind);
      expect(outcome.content.toString().startsWith("ERROR: "), call.id).toBe(kind !== "ok");
      if (call.rawArgs === undefined) expect(await tools.execute(call.name, call.args)).toEqual(outcome.content);
    }
  });

  it("cuts the observation of any kind as execute does", async () => {
    const outcome = await registry().executeCall(toolCall("c1", "nope"), { maxResultChars: 20 });
    expect(outcome.kind).toBe("unknown-tool");
    expect(outcome.content).toContain("characters cut");
  });
});

describe("tool.finished's failure", () => {
  it("a run logs why each error is one, and nothing more for a result", async () => {
    const store = new MemoryEventStore();
    const model = scriptedModel([asks(...calls.map(([call]) => call)), final("Done.")]);
    const result = await runAgent("Weather?", model, registry(), { store, runId: "r" });
    expect(result.status).toBe("done");
    const finished = (await store.read("r")).flatMap((e) => (e.type === "tool.finished" ? [e] : []));
    const kinds = Object.fromEntries(calls.map(([call, kind]) => [call.id, kind === "ok" ? undefined : kind]));
    expect(Object.fromEntries(finished.map((e) => [e.callId, e.failure]))).toEqual(kinds);
    for (const event of finished) expect(event.isError).toBe(event.failure === undefined ? undefined : true);
    expect(finished.map((e) => toolFailureOf(e, logFlags(4)))).toEqual(finished.map((e) => e.failure ?? null));
  });

  it("a call cut off by a crash that may not run again is logged as lost", async () => {
    const store = new MemoryEventStore();
    const journal = new Journal(store, "r", []);
    await journal.commit({ type: "run.started", schemaVersion: 4, settings: settingsOf(registry()) });
    await journal.commit({ type: "model.replied", reply: asks(toolCall("c1", "weather", { city: "Pune" })) });
    await journal.commit({ type: "tool.started", callId: "c1", name: "weather" });
    await resumeAgent("r", scriptedModel([final("Lost.")]), registry(), { store });
    const lost = (await store.read("r")).find((e) => e.type === "tool.finished");
    expect(lost).toMatchObject({ isError: true, failure: "lost" });
    expect(lost?.content).toMatch(/^ERROR: the result of weather was lost/);
  });

  it("an error logged before the field is read as before: lost by its text, else of unknown kind", () => {
    const lost = { content: "ERROR: the result of weather was lost: ...", isError: true } as const;
    expect(toolFailureOf(lost, logFlags(4))).toBe("lost");
    expect(toolFailureOf({ content: "ERROR: weather failed: x", isError: true }, logFlags(4))).toBe("unknown");
    expect(toolFailureOf({ content: "ERROR: weather failed: x" }, logFlags(2))).toBe("unknown");
    expect(toolFailureOf({ content: "ERROR: weather failed: x" }, logFlags(4))).toBeNull();
    expect(toolFailureOf({ content: '"ok"' }, logFlags(1))).toBeNull();
  });

  it("the log's check refuses a failure without isError, or of an unknown kind", async () => {
    const logOf = async (finished: RunEvent) => {
      const store = new MemoryEventStore();
      const journal = new Journal(store, "r", []);
      await journal.commit({ type: "run.started", schemaVersion: 4, settings: settingsOf(registry()) });
      await journal.commit({ type: "model.replied", reply: asks(toolCall("c1", "nope")) });
      await journal.commit({ type: "tool.started", callId: "c1", name: "nope" });
      await journal.commit(finished);
      return store.read("r");
    };
    const finished = { type: "tool.finished", callId: "c1", content: "ERROR: no" } as const;
    await expect(logOf({ ...finished, isError: true, failure: "unknown-tool" })).resolves.toHaveLength(4);
    await expect(logOf({ ...finished, failure: "unknown-tool" })).rejects.toThrow(/has a failure without isError/);
    const unknown = { ...finished, isError: true, failure: "oops" } as unknown as RunEvent;
    await expect(logOf(unknown)).rejects.toThrow(/has a failure without isError, or not one of invalid-args/);
  });
});
