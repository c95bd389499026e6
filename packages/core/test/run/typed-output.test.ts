import { describe, expect, expectTypeOf, it } from "vitest";
import { z } from "zod";
import {
  contentText,
  continueAgent,
  jsonSchema,
  MemoryEventStore,
  replayRun,
  resumeAgent,
  runAgent,
  streamAgent,
} from "../../src/index.js";
import { asks, final, makeWeatherRegistry, scriptedModel, toolCall } from "../../src/testing.js";

const Weather = z.object({ city: z.string(), celsius: z.number() });

describe("structured output", () => {
  it("types result.output from a Standard Schema, transforms applied, with tool calls before the answer", async () => {
    const { registry } = makeWeatherRegistry();
    const schema = Weather.transform((value) => ({ ...value, fahrenheit: (value.celsius * 9) / 5 + 32 }));
    const model = scriptedModel([
      asks(toolCall("c1", "get_weather", { city: "Pune" })),
      final('{"city":"Pune","celsius":30}'),
    ]);
    const result = await runAgent("Weather in Pune?", model, registry, { output: schema });
    expectTypeOf(result.output).toEqualTypeOf<z.output<typeof schema> | undefined>();
    expect(result.status).toBe("done");
    expect(result.output).toEqual({ city: "Pune", celsius: 30, fahrenheit: 86 });
    expect(result.answer).toBe('{"city":"Pune","celsius":30}');
    expect(result.steps).toBe(2);
  });

  it("types result.output from jsonSchema(...) and a literal JSON Schema", async () => {
    const { registry } = makeWeatherRegistry();
    const literal = {
      type: "object",
      properties: { city: { type: "string" } },
      required: ["city"],
    } as const;
    const fromLiteral = await runAgent("q", scriptedModel([final('{"city":"Pune"}')]), registry, { output: literal });
    expectTypeOf(fromLiteral.output).toEqualTypeOf<{ city: string } | undefined>();
    expect(fromLiteral.output).toEqual({ city: "Pune" });
    const marked = jsonSchema({ type: "object", properties: { n: { type: "integer" } }, required: ["n"] });
    const fromMarked = await runAgent("q", scriptedModel([final('{"n":2}')]), registry, { output: marked });
    expectTypeOf(fromMarked.output).toEqualTypeOf<{ n: number } | undefined>();
    expect(fromMarked.output).toEqual({ n: 2 });
  });

  it("tells the model what is wrong in the sentences of tool arguments, naming the path, and the loop goes on", async () => {
    const { registry } = makeWeatherRegistry();
    const schema = {
      type: "object",
      properties: { place: { type: "object", properties: { celsius: { type: "number" } } } },
    } as const;
    const model = scriptedModel([
      final("It is warm."),
      final('{"place":{"celsius":"hot"}}'),
      final('{"place":{"celsius":30}}'),
    ]);
    const result = await runAgent("q", model, registry, { output: schema });
    expect(result.status).toBe("done");
    expect(result.steps).toBe(3);
    const errors = result.messages.filter((m) => m.role === "user" && contentText(m.content).startsWith("ERROR:"));
    expect(errors).toHaveLength(2);
    expect(errors[0]?.content).toMatch(/^ERROR: your answer does not match the output schema: the answer is not JSON/);
    expect(errors[1]?.content).toContain("place.celsius");
    expect(model.seen[1]?.at(-1)).toEqual(errors[0]);
  });

  it("ends invalid_output after outputRetries invalid answers in a turn: the answer is the last text, no output", async () => {
    const { registry } = makeWeatherRegistry();
    const model = scriptedModel([final("a"), final("b"), final("c"), final("{}")]);
    const result = await runAgent("q", model, registry, { output: Weather });
    expect(result).toMatchObject({ status: "invalid_output", answer: "c", steps: 3 });
    expect(result.output).toBeUndefined();
    const none = await runAgent("q", scriptedModel([final("a")]), registry, { output: Weather, outputRetries: 0 });
    expect(none).toMatchObject({ status: "invalid_output", steps: 1 });
  });

  it("is not validated after the run returned: result.output is the logged, checked value before done is logged", async () => {
    const { registry } = makeWeatherRegistry();
    const store = new MemoryEventStore();
    const result = await runAgent("q", scriptedModel([final('{"city":"Pune","celsius":30}')]), registry, {
      output: Weather,
      store,
    });
    const types = (await store.read(result.runId as string)).map((e) => e.type);
    expect(types).toEqual(["run.started", "model.replied", "output.checked", "run.finished"]);
  });

  it("never runs a user's validator again on replay, resume or continue of a finished turn", async () => {
    const { registry } = makeWeatherRegistry();
    let calls = 0;
    const counted = Weather.refine(() => {
      calls++;
      return true;
    });
    const store = new MemoryEventStore();
    const model = scriptedModel([final("no"), final('{"city":"Pune","celsius":30}')]);
    const result = await runAgent("q", model, registry, { output: counted, store, runId: "r" });
    expect(calls).toBe(1);
    const replayed = replayRun(await store.read("r"), { runId: "r" });
    expect(replayed.result).toEqual({ ...result, runId: undefined, messages: result.messages });
    const resumed = await resumeAgent("r", model, registry, { store, output: counted });
    expect(resumed.output).toEqual(result.output);
    expect(calls).toBe(1);
  });

  it("is per turn in continueAgent, and streamAgent tells each verdict", async () => {
    const { registry } = makeWeatherRegistry();
    const store = new MemoryEventStore();
    const model = scriptedModel([final("hello"), final('{"city":"Pune","celsius":1}')]);
    const first = await runAgent("hi", model, registry, { store, runId: "c" });
    expect(first).toMatchObject({ status: "done", answer: "hello" });
    expect(first.output).toBeUndefined();
    const next = await continueAgent("c", "now as JSON", model, registry, { store, output: Weather });
    expectTypeOf(next.output).toEqualTypeOf<z.output<typeof Weather> | undefined>();
    expect(next.output).toEqual({ city: "Pune", celsius: 1 });
    const stream = streamAgent("q", scriptedModel([final("x"), final('{"city":"a","celsius":2}')]), registry, {
      output: Weather,
    });
    const verdicts = [];
    for await (const e of stream)
      if (e.type === "logged" && e.event.type === "output.checked") verdicts.push(e.event.valid);
    expect(verdicts).toEqual([false, true]);
  });

  it("sends the model the output's JSON Schema in its options", async () => {
    const { registry } = makeWeatherRegistry();
    const seen: unknown[] = [];
    await runAgent(
      "q",
      (_messages, _tools, options) => {
        seen.push(options.output);
        return final('{"city":"a","celsius":2}');
      },
      registry,
      { output: Weather },
    );
    expect(seen[0]).toMatchObject({ schema: { type: "object", required: ["city", "celsius"] } });
  });

  it("refuses a bad outputRetries and a schema that cannot be enforced before anything runs", async () => {
    const { registry } = makeWeatherRegistry();
    const model = scriptedModel([]);
    await expect(runAgent("q", model, registry, { output: Weather, outputRetries: -1 })).rejects.toThrow(
      /outputRetries must be a whole number/,
    );
    await expect(
      runAgent("q", model, registry, { output: { type: "object", properties: 3 } as never }),
    ).rejects.toThrow(/output/);
  });
});
