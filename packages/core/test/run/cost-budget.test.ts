import { describe, expect, it } from "vitest";
import {
  agentTool,
  asks,
  final,
  MemoryEventStore,
  type ModelReply,
  replayRun,
  runAgent,
  scriptedModel,
  ToolRegistry,
  toolCall,
} from "../../src/index.js";
import type { StoredEvent } from "../../src/store.js";
import { makeWeatherRegistry } from "../../src/testing.js";
import { searchTree } from "../agent-tools/agent-tree-fixture.js";

// Money: `pricing` gives every call a cost and the result a total, `costBudget` ends a run before
// a call that could pass it, and every refusal of bad prices or of a budget it cannot keep is one
// line before the run starts.

const billed = (reply: ModelReply, inputTokens: number, outputTokens: number, cache = {}): ModelReply => ({
  ...reply,
  usage: { inputTokens, outputTokens, ...cache },
});

/** A scripted model with a name, as adapters give one. */
function named<M extends object>(model: M, modelName: string): M & { modelName: string } {
  return Object.assign(model, { modelName });
}

const PRICE = { input: 3, output: 15, cachedInput: 0.3, cacheWrite: 3.75 };
const lookup = () => asks(toolCall("w1", "get_weather", { city: "Pune" }));

describe("the cost of a run", () => {
  it("prices each call's usage as billed (cached and cache-write tokens at their rates) and totals it", async () => {
    const model = named(
      scriptedModel([
        billed(lookup(), 1000, 100, { cacheWriteTokens: 800 }),
        billed(final("33 °C."), 1200, 50, { cachedInputTokens: 800 }),
      ]),
      "sonnet",
    );
    const store = new MemoryEventStore();
    const result = await runAgent("How hot is Pune?", model, makeWeatherRegistry().registry, {
      pricing: { sonnet: PRICE },
      store,
      runId: "r",
    });
    const first = (200 * 3 + 800 * 3.75 + 100 * 15) / 1e6;
    const second = (400 * 3 + 800 * 0.3 + 50 * 15) / 1e6;
    expect(result.status).toBe("done");
    expect(result.cost).toBeCloseTo(first + second, 12);
    const events = await store.read("r");
    expect(events[0]).toMatchObject({
      settings: { pricing: { sonnet: PRICE }, prices: { models: [{ name: "sonnet", price: PRICE }] } },
    });
    expect(events.at(-1)).toMatchObject({ type: "run.finished", outcome: { cost: result.cost } });
    // The cost is decided from the log alone: a replay gives it back exactly.
    expect(replayRun(events).result?.cost).toBe(result.cost);
  });

  it("has no cost without pricing, in the result and in the log", async () => {
    const store = new MemoryEventStore();
    const model = scriptedModel([billed(final("Hi."), 10, 2)]);
    const result = await runAgent("Hi?", model, new ToolRegistry(), { store, runId: "r" });
    expect(result).not.toHaveProperty("cost");
    expect(result).not.toHaveProperty("unpriced");
    const events = await store.read("r");
    expect(events[0]?.type === "run.started" && "prices" in events[0].settings).toBe(false);
    expect(events.at(-1)).toEqual(expect.objectContaining({ outcome: expect.not.objectContaining({ cost: 0 }) }));
  });

  it("prices a model with no name, or one not listed, by the key default", async () => {
    const model = scriptedModel([billed(final("Hi."), 1000, 1000)]);
    const result = await runAgent("Hi?", model, new ToolRegistry(), { pricing: { default: { input: 1, output: 2 } } });
    expect(result.cost).toBeCloseTo(0.003, 12);
  });

  it("says once that the cost is unknown when a model called has no price: no total, the model's name listed once", async () => {
    const model = named(scriptedModel([billed(lookup(), 100, 10), billed(final("Hot."), 120, 5)]), "mystery-1");
    const result = await runAgent("How hot?", model, makeWeatherRegistry().registry, {
      pricing: { sonnet: PRICE },
    });
    expect(result.status).toBe("done");
    expect(result).not.toHaveProperty("cost");
    expect(result.unpriced).toEqual(["mystery-1"]);
  });

  it("counts the children of agent tools in the parent's cost, with the parent's pricing when they have none", async () => {
    const { registry } = searchTree([billed(final("Lima."), 500, 20)]);
    const parent = named(
      scriptedModel([
        billed(asks(toolCall("r1", "research", { task: "capital of Peru" })), 300, 30),
        billed(final("Lima."), 400, 10),
      ]),
      "sonnet",
    );
    const store = new MemoryEventStore();
    const result = await runAgent("Capital of Peru?", parent, registry, {
      pricing: { sonnet: PRICE, default: { input: 1, output: 1 } },
      store,
      runId: "p",
    });
    const child = (500 + 20) / 1e6;
    const own = (300 * 3 + 30 * 15 + 400 * 3 + 10 * 15) / 1e6;
    expect(result.cost).toBeCloseTo(own + child, 12);
    const finished = (await store.read("p")).find((event) => event.type === "tool.finished");
    expect(finished).toMatchObject({ childRunId: "p.r1" });
    expect((finished as { cost: number }).cost).toBeCloseTo(child, 12);
  });

  it("makes the parent's cost unknown when a child called a model with no price", async () => {
    const { registry } = searchTree([billed(final("Lima."), 500, 20)]);
    const parent = named(
      scriptedModel([asks(toolCall("r1", "research", { task: "capital of Peru" })), final("Lima.")]),
      "sonnet",
    );
    const result = await runAgent("Capital of Peru?", parent, registry, { pricing: { sonnet: PRICE } });
    expect(result.unpriced).toEqual(["(unnamed model)"]);
    expect(result).not.toHaveProperty("cost");
  });
});

describe("costBudget", () => {
  it("ends the run with cost_budget before a call whose prompt and longest reply could pass it", async () => {
    const model = named(
      scriptedModel([billed(lookup(), 1000, 100), billed(lookup(), 1000, 100), billed(final("Hot."), 1000, 100)]),
      "sonnet",
    );
    Object.assign(model, { maxReplyTokens: 100 });
    // The first call costs 0.0045 USD; the second would need more than what is left of 0.006.
    const result = await runAgent("How hot?", model, makeWeatherRegistry().registry, {
      pricing: { sonnet: PRICE },
      costBudget: 0.006,
    });
    expect(result.status).toBe("cost_budget");
    expect(result.steps).toBe(1);
    expect(model.seen).toHaveLength(1);
    expect(result.cost).toBeCloseTo(0.0045, 12);
    expect(result.cost).toBeLessThanOrEqual(0.006);
  });

  it("prices the prompt at the model's dearest input rate: a prompt that could all be a cache write must fit", async () => {
    const price = { input: 1, output: 0, cacheWrite: 1000 };
    const model = named(scriptedModel([final("Hi.")]), "writer");
    // The prompt is some 20 tokens: at the input rate 0.00002 USD, as cache writes 0.02.
    const result = await runAgent("Hi?", model, new ToolRegistry(), { pricing: { writer: price }, costBudget: 0.001 });
    expect(result.status).toBe("cost_budget");
    expect(model.seen).toHaveLength(0);
    const roomy = named(scriptedModel([final("Hi.")]), "writer");
    const done = await runAgent("Hi?", roomy, new ToolRegistry(), { pricing: { writer: price }, costBudget: 1 });
    expect(done.status).toBe("done");
  });

  it("refuses a model prepareStep picks under a costBudget before the call: the check prices the run's model", async () => {
    const model = named(scriptedModel([billed(final("Hot."), 10, 10)]), "sonnet");
    const other = named(scriptedModel([billed(final("Hot."), 10, 10)]), "opus");
    const store = new MemoryEventStore();
    const run = runAgent("How hot?", model, makeWeatherRegistry().registry, {
      pricing: { sonnet: PRICE, opus: PRICE },
      costBudget: 1,
      prepareStep: () => ({ model: other }),
      store,
    });
    await expect(run).rejects.toThrow(
      /^prepareStep picked model 'opus' for step 1, but a run with costBudget calls only the model it was priced for \('sonnet'\)$/,
    );
    expect(other.seen).toHaveLength(0);
    const [runId] = (await store.list()).map((entry) => entry.runId);
    const types = runId === undefined ? [] : (await store.read(runId)).map((event) => event.type);
    expect(types).not.toContain("step.prepared");
    expect(types).not.toContain("model.replied");
  });

  it("gives a child of an agent tool at most what the parent has left", async () => {
    const loop = Array.from({ length: 30 }, (_, i) => asks(toolCall(`s${i}`, "search", { q: `q${i}` })));
    const { registry, searched } = searchTree(loop, { options: { maxSteps: 30 } });
    const parent = scriptedModel([asks(toolCall("r1", "research", { task: "everything" })), final("Done.")]);
    const store = new MemoryEventStore();
    const pricing = { default: { input: 1000, output: 1000 } };
    const result = await runAgent("Research.", parent, registry, { pricing, costBudget: 1, store, runId: "p" });
    const [started] = await store.read("p.r1");
    const childBudget = (started as Extract<StoredEvent, { type: "run.started" }>).settings.costBudget as number;
    expect(childBudget).toBeGreaterThan(0);
    expect(childBudget).toBeLessThan(1);
    const child = replayRun(await store.read("p.r1")).result;
    expect(child?.status).toBe("cost_budget");
    expect(searched.length).toBeLessThan(30);
    expect(result.cost).toBeLessThanOrEqual(1);
  });
});

describe("refused before the run, in one line", () => {
  const model = named(scriptedModel([final("Hi.")]), "sonnet");
  const registry = new ToolRegistry();

  it.each([
    [
      "a negative input price",
      { sonnet: { input: -1, output: 1 } },
      /^pricing\["sonnet"\]\.input must be USD per 1M tokens, a finite number 0 or more; got -1$/,
    ],
    ["a NaN output price", { sonnet: { input: 1, output: Number.NaN } }, /^pricing\["sonnet"\]\.output .*got NaN$/],
    [
      "an infinite cached price",
      { sonnet: { input: 1, output: 1, cachedInput: Number.POSITIVE_INFINITY } },
      /cachedInput .*got Infinity$/,
    ],
    ["a price as a string", { sonnet: { input: "3", output: 1 } }, /input .*got the string "3"$/],
    [
      "a price that is not an object",
      { sonnet: 3 },
      /^pricing\["sonnet"\] must be \{ input, output, cachedInput\?, cacheWrite\? \}$/,
    ],
    ["pricing that is not an object", [1], /^pricing must be an object of model names/],
  ])("%s", async (_, pricing, message) => {
    const store = new MemoryEventStore();
    const run = runAgent("Hi?", model, registry, { pricing: pricing as never, store, runId: "r" });
    await expect(run).rejects.toThrow(message);
    expect(await store.read("r")).toEqual([]);
  });

  it.each([
    ["a negative costBudget", -0.5, /^costBudget must be USD, a number 0 or more, or Infinity; got -0.5$/],
    ["a NaN costBudget", Number.NaN, /^costBudget must be USD.*got NaN$/],
  ])("%s", async (_, costBudget, message) => {
    await expect(runAgent("Hi?", model, registry, { pricing: { sonnet: PRICE }, costBudget })).rejects.toThrow(message);
  });

  it("a costBudget without pricing", async () => {
    await expect(runAgent("Hi?", model, registry, { costBudget: 1 })).rejects.toThrow(
      /^costBudget needs pricing: the price of each model the run calls$/,
    );
  });

  it("a costBudget when a model the run may call has no price: the run's, a fallback, the summarizer", async () => {
    const store = new MemoryEventStore();
    const fallback = named(scriptedModel([]), "haiku");
    const summarizer = scriptedModel([]);
    const options = {
      pricing: { sonnet: PRICE },
      costBudget: 1,
      fallbackModels: [fallback],
      compaction: { triggerTokens: 1000, summarizer },
      store,
      runId: "r",
    };
    await expect(runAgent("Hi?", model, registry, options)).rejects.toThrow(
      /^costBudget needs a price for every model the run may call, and pricing has none \(nor a "default"\) for haiku, \(unnamed model\)$/,
    );
    expect(await store.read("r")).toEqual([]);
    expect(model.seen).toHaveLength(0);
  });

  it("a costBudget when an agent tool's model has no price", async () => {
    const { registry: tree } = searchTree([final("Lima.")]);
    await expect(runAgent("Hi?", model, tree, { pricing: { sonnet: PRICE }, costBudget: 1 })).rejects.toThrow(
      /^costBudget needs a price for every model the run may call, .* for \(unnamed model\)$/,
    );
  });

  it("an agent tool whose own options price its model is let through", async () => {
    const child = named(scriptedModel([final("Lima.")]), "haiku");
    const tree = new ToolRegistry([
      agentTool({
        name: "research",
        description: "R.",
        model: child,
        registry: new ToolRegistry(),
        options: { pricing: { haiku: { input: 1, output: 5 } } },
      }),
    ]);
    const parent = named(scriptedModel([final("Hi.")]), "sonnet");
    const result = await runAgent("Hi?", parent, tree, { pricing: { sonnet: PRICE }, costBudget: 1 });
    expect(result.status).toBe("done");
  });
});
