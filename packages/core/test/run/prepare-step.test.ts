import { describe, expect, it } from "vitest";
import {
  asks,
  contentText,
  final,
  MemoryEventStore,
  type Model,
  ModelError,
  type ModelReply,
  type PrepareStep,
  replayRun,
  resumeAgent,
  runAgent,
  scriptedModel,
  type ToolSpec,
  toolCall,
} from "../../src/index.js";
import { makeWeatherRegistry, WEATHER_TASK, weatherScript } from "../../src/testing.js";

/** A scripted model that also records the tools and the tool choice of every call. */
function recording(replies: readonly ModelReply[]) {
  const model = scriptedModel(replies);
  const calls: { tools: string[]; toolChoice: unknown; system: string }[] = [];
  const wrapped: Model = (messages, tools, options) => {
    calls.push({
      tools: tools.map((spec: ToolSpec) => spec.name),
      toolChoice: options.toolChoice,
      system: contentText(messages[0]?.content ?? ""),
    });
    return model(messages, tools, options);
  };
  return { model: wrapped, calls, seen: model.seen };
}

describe("prepareStep: each model call's settings, decided before it and logged when it decides any", () => {
  it("is asked before each call with the step, the list and the tokens so far; what it decides is offered, sent and logged before the call", async () => {
    const { registry } = makeWeatherRegistry();
    const { model, calls } = recording(weatherScript());
    const asked: { step: number; messages: number; tokens: number }[] = [];
    const prepareStep: PrepareStep = ({ step, messages, tokens }) => {
      asked.push({ step, messages: messages.length, tokens });
      return step === 1 ? { activeTools: ["get_weather"], toolChoice: "required", system: "Be brief." } : undefined;
    };
    const store = new MemoryEventStore();
    const result = await runAgent(WEATHER_TASK, model, registry, { store, runId: "r", prepareStep });
    expect(result.status).toBe("done");
    expect(asked.map(({ step, messages }) => [step, messages])).toEqual([
      [1, 2],
      [2, 4],
      [3, 6],
    ]);
    expect(asked[0]?.tokens).toBe(0);
    expect(asked[1]?.tokens).toBeGreaterThan(0);
    expect(calls[0]).toEqual({
      tools: ["get_weather"],
      toolChoice: "required",
      system: `${result.messages[0]?.content}\n\nBe brief.`,
    });
    expect(calls[1]).toEqual({
      tools: ["get_weather", "c_to_f"],
      toolChoice: undefined,
      system: result.messages[0]?.content,
    });
    // The list keeps the system message as it was.
    expect(result.messages[0]?.content).not.toContain("Be brief.");
    const log = await store.read("r");
    const types = log.map((e) => e.type);
    expect(types.slice(0, 4)).toEqual(["run.started", "step.prepared", "model.replied", "tool.started"]);
    expect(log[1]).toMatchObject({
      step: 1,
      activeTools: ["get_weather"],
      toolChoice: "required",
      system: "Be brief.",
    });
    expect(log[0]).toMatchObject({ settings: { prepareStep: true } });
    // Replay reads the decisions from the log and never asks.
    expect(replayRun(log).result).toMatchObject({ status: "done", tokens: result.tokens, steps: 3 });
  });

  it("logs nothing for a step it leaves alone (nothing or an empty object): the model is asked at once, each step told started once", async () => {
    const { registry } = makeWeatherRegistry();
    const asked: number[] = [];
    const prepareStep: PrepareStep = ({ step }) => {
      asked.push(step);
      return step === 2 ? { system: "Be brief." } : step === 1 ? {} : undefined;
    };
    const started: number[] = [];
    const store = new MemoryEventStore();
    const result = await runAgent(WEATHER_TASK, scriptedModel(weatherScript()), registry, {
      store,
      runId: "r",
      prepareStep,
      onEvent: (event) => {
        if (event.type === "step-started") started.push(event.step);
      },
    });
    expect(result).toMatchObject({ status: "done", steps: 3 });
    expect(asked).toEqual([1, 2, 3]);
    expect(started).toEqual([1, 2, 3]);
    const log = await store.read("r");
    const prepared = log.filter((event) => event.type === "step.prepared");
    expect(prepared).toHaveLength(1);
    expect(prepared[0]).toMatchObject({ type: "step.prepared", step: 2, system: "Be brief." });
    expect(replayRun(log).result).toMatchObject({ status: "done", steps: 3, tokens: result.tokens });
  });

  it("asks first for a step the run's settings put over the budget: offering fewer tools brings it under", async () => {
    const { registry } = makeWeatherRegistry();
    const model = () => scriptedModel([final("Hot.")]);
    // The smallest budget the first call fits with every tool offered.
    let fits = 1;
    while ((await runAgent(WEATHER_TASK, model(), registry, { tokenBudget: fits })).status === "token_budget")
      fits += 5;
    const tokenBudget = fits - 5;
    expect(await runAgent(WEATHER_TASK, model(), registry, { tokenBudget })).toMatchObject({ status: "token_budget" });
    const store = new MemoryEventStore();
    const none = await runAgent(WEATHER_TASK, model(), registry, {
      tokenBudget,
      store,
      runId: "alone",
      prepareStep: () => undefined,
    });
    // Asked first, it left the step alone: the budget stops it, its empty decision logged.
    expect(none).toMatchObject({ status: "token_budget", steps: 0 });
    expect((await store.read("alone")).map((event) => event.type)).toEqual([
      "run.started",
      "step.prepared",
      "run.finished",
    ]);
    const fewer = await runAgent(WEATHER_TASK, model(), registry, {
      tokenBudget,
      prepareStep: () => ({ activeTools: [] }),
    });
    expect(fewer).toMatchObject({ status: "done", answer: "Hot.", steps: 1 });
  });

  it("tells a model that calls a tool it was not offered in that step the unknown-tool error, naming the tools offered; nothing runs", async () => {
    const { registry, runs } = makeWeatherRegistry();
    const model = scriptedModel([asks(toolCall("c1", "c_to_f", { c: 30 })), final("Unknown.")]);
    const result = await runAgent(WEATHER_TASK, model, registry, {
      prepareStep: () => ({ activeTools: ["get_weather"] }),
    });
    expect(result.messages[3]).toEqual({
      role: "tool",
      toolCallId: "c1",
      name: "c_to_f",
      content: "ERROR: unknown tool 'c_to_f'. Available tools: [get_weather]",
      isError: true,
    });
    expect(runs).toEqual([]);
  });

  it("with toolChoice 'none' sends the choice and refuses any call the model makes anyway", async () => {
    const { registry, runs } = makeWeatherRegistry();
    const { model, calls } = recording([asks(toolCall("w1", "get_weather", { city: "Pune" })), final("Hot.")]);
    const prepareStep: PrepareStep = ({ step }) => (step === 1 ? { toolChoice: "none" } : undefined);
    const result = await runAgent(WEATHER_TASK, model, registry, { prepareStep });
    expect(calls[0]?.toolChoice).toBe("none");
    expect(result.messages[3]).toMatchObject({
      isError: true,
      content: "ERROR: unknown tool 'get_weather'. Available tools: []",
    });
    expect(runs).toEqual([]);
    expect(result.answer).toBe("Hot.");
  });

  it("calls the model it picks, and the budget check reserves for that model's reply before the call", async () => {
    const { registry } = makeWeatherRegistry();
    const big = Object.assign(scriptedModel([final("From the big model.")]), {
      modelName: "big",
      maxReplyTokens: 5000,
    });
    const small = Object.assign(scriptedModel([final("From the small model.")]), {
      modelName: "small",
      maxReplyTokens: 10,
    });
    const run = (picked: Model) =>
      runAgent(WEATHER_TASK, scriptedModel([]), registry, {
        store: new MemoryEventStore(),
        runId: "r",
        prepareStep: () => ({ model: picked }),
      });
    const refused = await run(big);
    expect(refused).toMatchObject({ status: "token_budget", steps: 0 });
    expect(big.seen).toHaveLength(0);
    const store = new MemoryEventStore();
    const answered = await runAgent(WEATHER_TASK, scriptedModel([]), registry, {
      store,
      runId: "r",
      prepareStep: () => ({ model: small }),
    });
    expect(answered).toMatchObject({ status: "done", answer: "From the small model." });
    expect((await store.read("r"))[1]).toMatchObject({ type: "step.prepared", model: "small", reserve: 10 });
  });

  it("rejects the run with prepareStep's own error before the call, logging nothing for that step; the run resumes", async () => {
    const { registry } = makeWeatherRegistry();
    const model = scriptedModel(weatherScript());
    const store = new MemoryEventStore();
    const broken = new Error("the planner is down");
    const failing = runAgent(WEATHER_TASK, model, registry, {
      store,
      runId: "r",
      prepareStep: () => {
        throw broken;
      },
    });
    await expect(failing).rejects.toBe(broken);
    expect((await store.read("r")).map((e) => e.type)).toEqual(["run.started"]);
    expect(model.seen).toHaveLength(0);
    const result = await resumeAgent("r", model, registry, { store, prepareStep: () => undefined });
    expect(result.status).toBe("done");
  });

  it("refuses in one line, before the call, tool names the registry does not have and a toolChoice naming a tool not offered", async () => {
    const { registry } = makeWeatherRegistry();
    const model = scriptedModel(weatherScript());
    const store = new MemoryEventStore();
    const unknown = runAgent(WEATHER_TASK, model, registry, {
      store,
      runId: "r",
      prepareStep: () => ({ activeTools: ["get_wether"] }),
    });
    await expect(unknown).rejects.toThrow(
      new RangeError(
        "prepareStep for step 1 names tools the registry does not have: 'get_wether' (tools: get_weather, c_to_f)",
      ),
    );
    const chosen = runAgent(WEATHER_TASK, model, registry, {
      prepareStep: () => ({ activeTools: ["get_weather"], toolChoice: { name: "c_to_f" } }),
    });
    await expect(chosen).rejects.toThrow(
      /^prepareStep for step 1: toolChoice names 'c_to_f', which is not offered in this step \(offered: get_weather\)$/,
    );
    expect(model.seen).toHaveLength(0);
    expect((await store.read("r")).map((e) => e.type)).toEqual(["run.started"]);
  });

  it("retries the model it picked as configured, then falls back", async () => {
    const { registry } = makeWeatherRegistry();
    let failures = 0;
    const flaky: Model = () => {
      failures++;
      throw new ModelError("overloaded", { messages: [], step: 1, retryable: true });
    };
    const fallback = scriptedModel([final("From the fallback.")]);
    const result = await runAgent(WEATHER_TASK, scriptedModel([]), registry, {
      prepareStep: () => ({ model: flaky }),
      retry: { attempts: 1, initialDelayMs: 0 },
      fallbackModels: [fallback],
    });
    expect(failures).toBe(2);
    expect(result).toMatchObject({ status: "done", answer: "From the fallback." });
  });

  it("is asked before every step of a run that fell back, not only the step whose call failed over", async () => {
    const { registry } = makeWeatherRegistry();
    const down: Model = () => {
      throw new ModelError("the provider is overloaded", { messages: [], step: 1, retryable: true });
    };
    const asked: number[] = [];
    const result = await runAgent(WEATHER_TASK, down, registry, {
      prepareStep: ({ step }) => {
        asked.push(step);
        return undefined;
      },
      fallbackModels: [scriptedModel(weatherScript())],
    });
    expect(result).toMatchObject({ status: "done", steps: 3 });
    expect(asked).toEqual([1, 2, 3]);
  });

  it("cancels a run whose prepareStep hangs", async () => {
    const { registry } = makeWeatherRegistry();
    const controller = new AbortController();
    let heard: AbortSignal | undefined;
    const prepareStep: PrepareStep = ({ signal }) => {
      heard = signal;
      controller.abort();
      return new Promise(() => {});
    };
    const result = await runAgent(WEATHER_TASK, scriptedModel([]), registry, {
      prepareStep,
      signal: controller.signal,
    });
    expect(result).toMatchObject({ status: "cancelled", steps: 0 });
    expect(heard?.aborted).toBe(true);
  });

  it("is never asked again for a logged step: a resumed run reads its decision from the log", async () => {
    const { registry } = makeWeatherRegistry();
    const store = new MemoryEventStore();
    const steps: number[] = [];
    const prepareStep: PrepareStep = ({ step }) => {
      steps.push(step);
      return { activeTools: step === 1 ? ["get_weather"] : ["c_to_f"] };
    };
    const model = scriptedModel(weatherScript());
    await runAgent(WEATHER_TASK, model, registry, { store, runId: "r", prepareStep });
    const log = await store.read("r");
    // Cut the log after the second step's decision (as a crash there would leave it) and resume.
    const cut = log.findIndex((e) => e.type === "step.prepared" && e.step === 2);
    const copy = new MemoryEventStore();
    for (const event of log.slice(0, cut + 1)) await copy.append("r", event);
    steps.length = 0;
    const result = await resumeAgent("r", scriptedModel(weatherScript().slice(1)), registry, {
      store: copy,
      prepareStep,
    });
    expect(result.status).toBe("done");
    expect(steps).toEqual([3]);
  });

  it("is required again to resume a run started with it", async () => {
    const { registry } = makeWeatherRegistry();
    const store = new MemoryEventStore();
    await expect(
      runAgent(WEATHER_TASK, scriptedModel([]), registry, {
        store,
        runId: "r",
        prepareStep: () => {
          throw new Error("down");
        },
      }),
    ).rejects.toThrow("down");
    await expect(resumeAgent("r", scriptedModel(weatherScript()), registry, { store })).rejects.toThrow(
      "the run was started with prepareStep: give it again to go on with the run",
    );
  });
});
