import { describe, expect, it } from "vitest";
import {
  asks,
  contentText,
  countTokens,
  final,
  type Message,
  type Model,
  ModelError,
  runAgent,
  scriptedModel,
  type ToolParameters,
  ToolRegistry,
  type ToolSpec,
  toolCall,
} from "../../src/index.js";
import { weatherScript as happyScript, makeWeatherRegistry, WEATHER_TASK as TASK } from "../../src/testing.js";

/** True when a function hides anywhere inside `value`. */
function containsFunction(value: unknown): boolean {
  if (typeof value === "function") return true;
  if (typeof value !== "object" || value === null) return false;
  return Object.values(value).some(containsFunction);
}

function toolMessages(messages: readonly Message[]): Extract<Message, { role: "tool" }>[] {
  return messages.filter((m): m is Extract<Message, { role: "tool" }> => m.role === "tool");
}

function toolContents(messages: readonly Message[]): string[] {
  return toolMessages(messages).map((m) => contentText(m.content));
}

/** The full cost of the happy path, for the budget scenarios. */
async function fullRunTokens(): Promise<number> {
  const { registry } = makeWeatherRegistry();
  const result = await runAgent(TASK, scriptedModel(happyScript()), registry);
  expect(result.status).toBe("done");
  return result.tokens;
}

describe("seed scenarios", () => {
  it("happy path: two tool steps, then the final answer", async () => {
    const { registry, runs } = makeWeatherRegistry();
    const model = scriptedModel(happyScript());
    const toolsShown: (readonly ToolSpec[])[] = [];
    const spy: Model = (messages, tools, options) => {
      toolsShown.push(tools);
      return model(messages, tools, options);
    };

    const r = await runAgent(TASK, spy, registry, { system: "Use the tools." });

    expect(r.status).toBe("done");
    expect(r.answer).toBe("It is 86 F in Pune.");
    expect(r.steps).toBe(3);
    expect(r.messages.map((m) => m.role)).toEqual([
      "system",
      "user",
      "assistant",
      "tool",
      "assistant",
      "tool",
      "assistant",
    ]);
    expect(r.messages[0]).toEqual({ role: "system", content: "Use the tools." });
    expect(r.messages[1]).toEqual({ role: "user", content: TASK });
    // Text alongside a tool call is not an answer: the first reply is kept as a step.
    expect(r.messages[2]).toMatchObject({ role: "assistant", content: "I will look up Pune first." });
    const [first, second] = toolMessages(r.messages);
    expect(first).toMatchObject({ toolCallId: "c1", name: "get_weather" });
    expect(JSON.parse(contentText(first?.content ?? ""))).toEqual({ city: "Pune", celsius: 30 });
    expect(second).toMatchObject({ toolCallId: "c2", name: "c_to_f" });
    expect(JSON.parse(contentText(second?.content ?? ""))).toBe(86);
    expect(runs).toEqual([
      ["get_weather", "Pune"],
      ["c_to_f", 30],
    ]);
    expect(r.messages.at(-1)).toEqual({ role: "assistant", content: "It is 86 F in Pune.", toolCalls: [] });
    // The trace is plain JSON.
    expect(JSON.parse(JSON.stringify(r.messages))).toEqual(r.messages);
    // Specs, as listed and as the model was shown them, never carry a function.
    expect(registry.specs().map((s) => s.name)).toEqual(["get_weather", "c_to_f"]);
    expect(containsFunction(registry.specs())).toBe(false);
    expect(toolsShown).toHaveLength(3);
    for (const tools of toolsShown) {
      expect(containsFunction(tools)).toBe(false);
      expect(tools.map((s) => Object.keys(s).sort())).toEqual([
        ["description", "name", "parameters"],
        ["description", "name", "parameters"],
      ]);
    }
  });

  it("shows the model the whole list each call: 2, then 4, then 6 messages", async () => {
    const { registry } = makeWeatherRegistry();
    const model = scriptedModel(happyScript());
    const r = await runAgent(TASK, model, registry);

    expect(model.seen.map((s) => s.length)).toEqual([2, 4, 6]);
    // Each call saw a prefix of the final list: nothing was edited or removed.
    for (const shown of model.seen) expect(shown).toEqual(r.messages.slice(0, shown.length));
    // From the second call on, the last message shown is the tool result just appended.
    expect(model.seen[1]?.at(-1)).toMatchObject({ role: "tool", toolCallId: "c1" });
    expect(model.seen[1]?.at(-1)).toEqual(r.messages[3]);
    expect(model.seen[2]?.at(-1)).toMatchObject({ role: "tool", toolCallId: "c2" });
    expect(model.seen[2]?.at(-1)).toEqual(r.messages[5]);
  });

  it("two calls in one reply: one tool message per call, in order, matched by id", async () => {
    const { registry, runs } = makeWeatherRegistry();
    const model = scriptedModel([
      asks(toolCall("a", "get_weather", { city: "Pune" }), toolCall("b", "get_weather", { city: "Delhi" })),
      final("Delhi is hotter."),
    ]);
    const r = await runAgent("Which is hotter, Pune or Delhi?", model, registry);

    const tools = toolMessages(r.messages);
    expect(tools).toHaveLength(2);
    expect(tools.map((m) => m.toolCallId)).toEqual(["a", "b"]);
    expect(JSON.parse(contentText(tools[0]?.content ?? ""))).toEqual({ city: "Pune", celsius: 30 });
    expect(JSON.parse(contentText(tools[1]?.content ?? ""))).toEqual({ city: "Delhi", celsius: 35 });
    expect(r.messages.map((m) => m.role)).toEqual(["system", "user", "assistant", "tool", "tool", "assistant"]);
    expect(runs).toEqual([
      ["get_weather", "Pune"],
      ["get_weather", "Delhi"],
    ]);
    expect(model.seen.map((s) => s.length)).toEqual([2, 5]);
    expect(r.status).toBe("done");
    expect(r.answer).toBe("Delhi is hotter.");
    expect(r.steps).toBe(2);
  });

  it("unknown tool: nothing runs, the error lists the real tools, the loop goes on", async () => {
    const { registry, runs } = makeWeatherRegistry();
    const model = scriptedModel([
      asks(toolCall("c1", "get_forecast", { city: "Pune" })),
      final("I could not look that up."),
    ]);
    const r = await runAgent(TASK, model, registry);

    expect(r.messages[3]).toEqual({
      role: "tool",
      toolCallId: "c1",
      name: "get_forecast",
      content: "ERROR: unknown tool 'get_forecast'. Available tools: ['c_to_f', 'get_weather']",
      isError: true,
    });
    expect(model.seen[1]?.at(-1)).toEqual(r.messages[3]);
    expect(runs).toEqual([]);
    expect(r.status).toBe("done");
    expect(r.answer).toBe("I could not look that up.");
  });

  it("bad arguments: four different mistakes in one reply, none reaches a function", async () => {
    const { registry, runs } = makeWeatherRegistry();
    const model = scriptedModel([
      asks(
        toolCall("m1", "get_weather"),
        toolCall("m2", "c_to_f", { celsius: "30" }),
        toolCall("m3", "get_weather", { city: "Pune", unit: "F" }),
        toolCall("m4", "c_to_f", { celsius: true }),
      ),
      final("Giving up."),
    ]);
    const r = await runAgent(TASK, model, registry);

    const tools = toolMessages(r.messages);
    expect(tools.map((m) => m.toolCallId)).toEqual(["m1", "m2", "m3", "m4"]);
    const errors = toolContents(r.messages);
    expect(errors[0]?.startsWith("ERROR: missing required argument 'city'")).toBe(true);
    expect(errors[1]?.startsWith("ERROR: argument 'celsius' must be of type number")).toBe(true);
    expect(errors[2]?.startsWith("ERROR: unexpected argument 'unit'")).toBe(true);
    expect(errors[3]?.startsWith("ERROR: argument 'celsius' must be of type number")).toBe(true);
    expect(errors[0]?.endsWith('get_weather expects {"city":{"type":"string"}}')).toBe(true);
    expect(errors).toEqual([
      `ERROR: missing required argument 'city'. get_weather expects {"city":{"type":"string"}}`,
      `ERROR: argument 'celsius' must be of type number. c_to_f expects {"celsius":{"type":"number"}}`,
      `ERROR: unexpected argument 'unit'. get_weather expects {"city":{"type":"string"}}`,
      `ERROR: argument 'celsius' must be of type number. c_to_f expects {"celsius":{"type":"number"}}`,
    ]);
    expect(runs).toEqual([]);
    expect(r.status).toBe("done");
    expect(r.steps).toBe(2);
  });

  it("a tool that throws: the error becomes an observation and the model recovers", async () => {
    const { registry, runs } = makeWeatherRegistry();
    const model = scriptedModel([
      asks(toolCall("c1", "get_weather", { city: "Atlantis" })),
      asks(toolCall("c2", "get_weather", { city: "Pune" })),
      final("Pune is at 30 C."),
    ]);
    const r = await runAgent("How hot is Atlantis? If unknown, use Pune.", model, registry);

    expect(r.messages[3]).toEqual({
      role: "tool",
      toolCallId: "c1",
      name: "get_weather",
      content: "ERROR: get_weather failed: Error: unknown city 'Atlantis'",
      isError: true,
    });
    expect(model.seen[1]?.at(-1)).toEqual(r.messages[3]);
    expect(JSON.parse(toolContents(r.messages)[1] ?? "")).toEqual({ city: "Pune", celsius: 30 });
    expect(runs).toEqual([
      ["get_weather", "Atlantis"],
      ["get_weather", "Pune"],
    ]);
    expect(r.status).toBe("done");
    expect(r.answer).toBe("Pune is at 30 C.");
    expect(r.steps).toBe(3);
  });

  it("a tool with no arguments and no 'properties' key runs, and refuses an extra argument", async () => {
    const bare = new ToolRegistry();
    let pings = 0;
    bare.register("ping", "Health check. Takes no arguments.", { type: "object" }, () => {
      pings += 1;
      return "pong";
    });
    await expect(bare.execute("ping", {})).resolves.toBe('"pong"');
    await expect(bare.execute("ping", { x: 1 })).resolves.toBe("ERROR: unexpected argument 'x'. ping expects {}");
    expect(pings).toBe(1);
  });

  it("an unsupported schema type is refused at registration", () => {
    const registry = new ToolRegistry();
    const schema = { type: "object", properties: { items: { type: "array" } } } as unknown as ToolParameters;
    expect(() => registry.register("bad", "Schema with an unknown type.", schema, (items: unknown) => items)).toThrow(
      /unsupported type 'array'/,
    );
    expect(registry.specs()).toEqual([]);
  });

  it("step limit: a model that never finishes is called exactly maxSteps times", async () => {
    const { registry, runs } = makeWeatherRegistry();
    const saw: number[] = [];
    const neverFinishes: Model = (messages) => {
      saw.push(messages.length);
      return asks(toolCall(`c${saw.length}`, "get_weather", { city: "Pune" }));
    };
    const r = await runAgent(TASK, neverFinishes, registry, { maxSteps: 5, tokenBudget: 10 ** 9 });

    expect(saw).toEqual([2, 4, 6, 8, 10]);
    expect(r.status).toBe("step_limit");
    expect(r.answer).toBeNull();
    expect(r.steps).toBe(5);
    const observations = toolMessages(r.messages);
    expect(observations.map((m) => m.toolCallId)).toEqual(["c1", "c2", "c3", "c4", "c5"]);
    // The spec's defaults refuse nothing: the tool ran on each of the five calls.
    expect(runs).toHaveLength(5);
    expect(observations.every((m) => JSON.parse(contentText(m.content)).celsius === 30)).toBe(true);
  });

  it("step limit: with a repeat limit that is never reached, every call runs", async () => {
    const { registry, runs } = makeWeatherRegistry();
    let calls = 0;
    const neverFinishes: Model = () => asks(toolCall(`c${++calls}`, "get_weather", { city: "Pune" }));
    const r = await runAgent(TASK, neverFinishes, registry, { maxSteps: 5, tokenBudget: 10 ** 9, repeatLimit: 10 });
    expect(r.status).toBe("step_limit");
    expect(calls).toBe(5);
    expect(runs).toHaveLength(5);
  });

  it("token budget: the call that would overspend is never made", async () => {
    const full = await fullRunTokens();
    const half = Math.floor(full / 2);
    const { registry } = makeWeatherRegistry();
    const model = scriptedModel(happyScript());
    const r = await runAgent(TASK, model, registry, { tokenBudget: half });

    expect(r.status).toBe("token_budget");
    expect(r.answer).toBeNull();
    expect(r.steps).toBe(model.seen.length);
    expect(r.steps).toBeLessThan(3);
    expect(r.tokens).toBeLessThanOrEqual(half);
    // The next prompt is what did not fit.
    const nextPrompt = countTokens(registry.specs()) + countTokens(r.messages);
    expect(r.tokens + nextPrompt).toBeGreaterThan(half);
  });

  it("token budget: a budget of exactly the full cost lets the run finish", async () => {
    const full = await fullRunTokens();
    const { registry } = makeWeatherRegistry();
    const r = await runAgent(TASK, scriptedModel(happyScript()), registry, { tokenBudget: full });
    expect(r.status).toBe("done");
    expect(r.tokens).toBe(full);
    expect(r.steps).toBe(3);
  });

  it("token budget: a prompt that exactly fills what is left is still sent", async () => {
    const { registry } = makeWeatherRegistry();
    const full = await runAgent(TASK, scriptedModel(happyScript()), registry);
    // spent before the last call + its prompt = full cost - the last reply.
    const edge = full.tokens - countTokens(full.messages.at(-1));
    const atEdge = await runAgent(TASK, scriptedModel(happyScript()), registry, { tokenBudget: edge });
    expect(atEdge.status).toBe("done");
    expect(atEdge.steps).toBe(3);
    const model = scriptedModel(happyScript());
    const below = await runAgent(TASK, model, registry, { tokenBudget: edge - 1 });
    expect(below.status).toBe("token_budget");
    expect(below.steps).toBe(2);
    expect(model.seen).toHaveLength(2);
  });

  it("counts tokens as every prompt (specs + whole list) plus every reply", async () => {
    const { registry } = makeWeatherRegistry();
    const model = scriptedModel(happyScript());
    const r = await runAgent(TASK, model, registry);
    const specs = countTokens(registry.specs());
    const assistants = r.messages.filter((m) => m.role === "assistant");
    const expected = model.seen.reduce(
      (sum, shown, i) => sum + specs + countTokens(shown) + countTokens(assistants[i]),
      0,
    );
    expect(r.tokens).toBe(expected);
  });

  it("a stopped run still returns the whole message list", async () => {
    const { registry, runs } = makeWeatherRegistry();
    const byStep = await runAgent(TASK, scriptedModel(happyScript()), registry, { maxSteps: 2 });
    expect(byStep.status).toBe("step_limit");
    expect(byStep.steps).toBe(2);
    expect(byStep.messages.map((m) => m.role)).toEqual(["system", "user", "assistant", "tool", "assistant", "tool"]);
    expect(toolContents(byStep.messages)[1]).toBe("86");
    expect(runs).toHaveLength(2);

    const full = await fullRunTokens();
    const model = scriptedModel(happyScript());
    const byBudget = await runAgent(TASK, model, makeWeatherRegistry().registry, { tokenBudget: Math.floor(full / 2) });
    expect(byBudget.status).toBe("token_budget");
    const lastShown = model.seen.at(-1) ?? [];
    expect(byBudget.messages.length).toBe(lastShown.length + 2);
    expect(byBudget.messages.slice(0, lastShown.length)).toEqual(lastShown);
    expect(byBudget.messages.at(-1)?.role).toBe("tool");
  });

  it("the scripted model throws when the script runs out, and the run rejects", async () => {
    const { registry } = makeWeatherRegistry();
    const model = scriptedModel([asks(toolCall("c1", "get_weather", { city: "Pune" }))]);
    await expect(runAgent(TASK, model, registry)).rejects.toBeInstanceOf(ModelError);

    const empty = scriptedModel([]);
    const signal = new AbortController().signal;
    await expect(async () => empty([], [], { signal })).rejects.toThrow();
  });
});
