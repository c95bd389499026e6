import {
  asks,
  final,
  MemoryEventStore,
  type Message,
  type ModelReply,
  type PrepareStep,
  replayRun,
  runAgent,
  type ToolRegistry,
  type ToolSpec,
  toolCall,
} from "@agentloop/core";
import { makeWeatherRegistry } from "@agentloop/core/testing";
import { hangGuard } from "@agentloop/store-testkit/servers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AgentWorkflowOptions, agentWorkflow } from "../src/index.js";
import { stepModel } from "./support/in-process.js";
import { type InProcessHarness, openInProcess, untimed } from "./support/in-process-harness.js";

// Per-step control (`prepareStep`) and money (`pricing`, `costBudget`) on the real server,
// compared with runAgent given the same options: the same result, the same log.

const billed = (reply: ModelReply, inputTokens: number, outputTokens: number): ModelReply => ({
  ...reply,
  usage: { inputTokens, outputTokens },
});

/** A step-scripted model with a name (as adapters give one), that notes the tools and system prompt of each call. */
function seeing(script: readonly ModelReply[], modelName = "sonnet") {
  const inner = stepModel(script);
  const seen: { tools: string[]; system: string }[] = [];
  const model = (messages: readonly Message[], tools: readonly ToolSpec[], options: Parameters<typeof inner>[2]) => {
    const system = messages.find((message) => message.role === "system");
    seen.push({ tools: tools.map((tool) => tool.name), system: String(system?.content) });
    return inner(messages, tools, options);
  };
  return Object.assign(model, { modelName, seen, maxReplyTokens: 100 });
}

/** Offers only `get_weather` in step 1 and adds to the system prompt of every step; notes each step it is asked about. */
function preparing(asked: number[]): PrepareStep {
  return ({ step }) => {
    asked.push(step);
    return step === 1 ? { activeTools: ["get_weather"], system: "Be brief." } : { system: `Step ${step}.` };
  };
}

const registry = (): ToolRegistry => makeWeatherRegistry().registry;
const PRICE = { input: 3, output: 15 };
const lookup = (id: string) => asks(toolCall(id, "get_weather", { city: "Pune" }));

/** Each workflow's options, made afresh for runAgent; `asked` collects the steps prepareStep was asked about. */
function features(asked: number[]) {
  return {
    prepared: () => ({
      // Step 1 calls a tool that prepareStep did not offer, then the one it did.
      model: seeing([
        asks(toolCall("c1", "c_to_f", { celsius: 30 }), toolCall("w1", "get_weather", { city: "Pune" })),
        final("30 C."),
      ]),
      registry: registry(),
      prepareStep: preparing(asked),
    }),
    picking: () => {
      const other = seeing([final("From the other model.")], "haiku");
      return {
        // The picked model rides on the run's, for the test to read.
        model: Object.assign(seeing([final("From the run's model.")]), { other }),
        registry: registry(),
        prepareStep: ((step) => {
          asked.push(step.step);
          return { model: other };
        }) satisfies PrepareStep,
      };
    },
    priced: () => ({
      model: seeing([billed(lookup("w1"), 1000, 100), billed(final("Hot."), 1000, 100)]),
      registry: registry(),
      pricing: { sonnet: PRICE },
    }),
    budgeted: () => ({
      model: seeing([billed(lookup("w1"), 1000, 100), billed(lookup("w2"), 1000, 100), billed(final("Hot."), 1, 1)]),
      registry: registry(),
      pricing: { sonnet: PRICE },
      // The first call costs 0.0045 USD; the second would need more than what is left of 0.006.
      costBudget: 0.006,
    }),
  } satisfies Record<string, () => Omit<AgentWorkflowOptions, "name" | "store">>;
}

type Feature = keyof ReturnType<typeof features>;

const store = new MemoryEventStore();
const durableAsked: number[] = [];
const durable = features(durableAsked);
const made = Object.fromEntries(Object.entries(durable).map(([name, make]) => [name, make()])) as {
  [F in Feature]: ReturnType<ReturnType<typeof features>[F]>;
};
const workflows = Object.entries(made).map(([name, options]) => agentWorkflow({ name, store, ...options }));

describe("per-step control and cost on Restate", () => {
  let restate: InProcessHarness;

  beforeAll(async () => {
    restate = await openInProcess(workflows);
  }, hangGuard(60_000));

  afterAll(async () => {
    await restate?.close();
  });

  /** Runs `task` on the workflow and with runAgent on fresh models; returns both results and logs. */
  async function both(feature: Feature, runId: string, task: string) {
    const run = restate.run(feature, runId);
    await run.workflowSubmit({ task });
    const result = await run.workflowAttach();
    const local = new MemoryEventStore();
    const liveAsked: number[] = [];
    const { model, registry, ...options } = features(liveAsked)[feature]();
    const live = await runAgent(task, model, registry, { ...options, store: local, runId });
    return { result, live, mirrored: await store.read(runId), logged: await local.read(runId), liveAsked, model };
  }

  it("prepareStep: the tools it offers and the system prompt it adds, logged and applied as runAgent does", async () => {
    const { result, live, mirrored, logged, liveAsked, model } = await both("prepared", "prepared-1", "Weather?");
    expect(result).toMatchObject({ status: "done", answer: "30 C.", steps: 2 });
    expect(result).toEqual(live);
    expect(untimed(mirrored)).toEqual(untimed(logged));
    expect(mirrored.filter((event) => event.type === "step.prepared")).toMatchObject([
      { step: 1, activeTools: ["get_weather"], system: "Be brief." },
      { step: 2, system: "Step 2." },
    ]);
    // The call of a tool it did not offer got the unknown-tool observation; the offered one ran.
    const observation = result.messages.find((message) => message.role === "tool" && message.toolCallId === "c1");
    expect(observation?.content).toMatch(/^ERROR: .*c_to_f/);
    const workflowModel = made.prepared.model;
    expect(workflowModel.seen[1]?.tools).toEqual(["get_weather", "c_to_f"]);
    expect(workflowModel.seen[0]?.tools).toEqual(["get_weather"]);
    expect(workflowModel.seen[0]?.system).toContain("Be brief.");
    expect(workflowModel.seen[1]?.tools).toEqual(model.seen[1]?.tools);
    // Asked once per step, as runAgent asks it.
    expect(durableAsked).toEqual([1, 2]);
    expect(liveAsked).toEqual([1, 2]);
    const { runId: _runId, ...rest } = result;
    expect(replayRun(mirrored).result).toEqual(rest);
  });

  it("prepareStep: a model it picks answers, and it is asked once for the step, as runAgent asks it", async () => {
    durableAsked.length = 0;
    const { result, live, mirrored, logged, liveAsked } = await both("picking", "picking-1", "Weather?");
    expect(result).toMatchObject({ status: "done", answer: "From the other model." });
    expect(result).toEqual(live);
    expect(untimed(mirrored)).toEqual(untimed(logged));
    expect(mirrored.find((event) => event.type === "step.prepared")).toMatchObject({ step: 1, model: "haiku" });
    expect(made.picking.model.other.seen).toHaveLength(1);
    expect(made.picking.model.seen).toHaveLength(0);
    expect(durableAsked).toEqual([1]);
    expect(liveAsked).toEqual([1]);
  });

  it("pricing: each reply's cost and the run's total, as runAgent has them", async () => {
    const { result, live, mirrored, logged } = await both("priced", "priced-1", "How hot?");
    expect(result).toMatchObject({ status: "done", answer: "Hot." });
    expect(result.cost).toBeCloseTo(2 * ((1000 * 3 + 100 * 15) / 1e6), 12);
    expect(result).toEqual(live);
    expect(untimed(mirrored)).toEqual(untimed(logged));
    expect(mirrored[0]).toMatchObject({ settings: { pricing: { sonnet: PRICE } } });
    expect(mirrored.at(-1)).toMatchObject({ type: "run.finished", outcome: { cost: result.cost } });
  });

  it("costBudget: the run ends with cost_budget before a call that could pass it, as runAgent's does", async () => {
    const { result, live, mirrored, logged } = await both("budgeted", "budgeted-1", "How hot?");
    expect(result).toMatchObject({ status: "cost_budget", steps: 1 });
    expect(result.cost).toBeCloseTo(0.0045, 12);
    expect(result).toEqual(live);
    expect(untimed(mirrored)).toEqual(untimed(logged));
    expect(made.budgeted.model.seen).toHaveLength(1);
    const { runId: _runId, ...rest } = result;
    expect(replayRun(mirrored).result).toEqual(rest);
  });
});
