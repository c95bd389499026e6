import {
  asks,
  final,
  MemoryEventStore,
  type Model,
  ModelError,
  scriptedModel,
  ToolRegistry,
  toolCall,
} from "@agentloop/core";
import { describe, expect, it } from "vitest";
import { inMemory, ms, only, shape, trees } from "./in-memory.js";

class OverloadedError extends Error {
  override readonly name = "OverloadedError";
  readonly retryable = true;
}
class AuthenticationError extends Error {
  override readonly name = "AuthenticationError";
  readonly retryable = false;
}

/** A model that throws each of `failures` in turn, then answers. */
function flaky(failures: readonly Error[]): Model {
  let calls = 0;
  return () => {
    const failure = failures[calls];
    calls += 1;
    if (failure !== undefined) throw failure;
    return final("It is 30 °C in Pune.");
  };
}

/** A run whose model is overloaded, waited out, then refuses the key, so that the fallback answers. */
async function failingOver(captureContent: boolean) {
  const memory = inMemory({ captureContent, fallbackModels: ["claude-sonnet-4-5"] });
  const store = new MemoryEventStore();
  const model = flaky([new OverloadedError("529 overloaded"), new AuthenticationError("401 bad key")]);
  const fallback = scriptedModel([{ ...final("It is 30 °C in Pune."), usage: { inputTokens: 20, outputTokens: 8 } }]);
  const result = await memory.telemetry.runAgent("How hot is Pune?", model, new ToolRegistry(), {
    store,
    runId: "failover",
    retry: { attempts: 1, initialDelayMs: 20 },
    fallbackModels: [fallback],
  });
  return { ...memory, result, events: await store.read("failover") };
}

describe("failed attempts, backoffs and fallback models", () => {
  it("are a failed chat span per attempt, a retry_wait span per backoff, and the fallback's name on the reply's span", async () => {
    const { spans, result, events } = await failingOver(false);
    expect(result.status).toBe("done");
    expect(events.map((event) => event.type)).toEqual([
      "run.started",
      "model.failed",
      "retry.waited",
      "model.failed",
      "model.replied",
      "run.finished",
    ]);
    const base = {
      "gen_ai.operation.name": "chat",
      "gen_ai.provider.name": "openai",
      "gen_ai.request.model": "gpt-4.1",
      "gen_ai.conversation.id": "failover",
      "agentloop.step": 1,
    };
    const exception = (type: string, message: string) => ({
      name: "exception",
      attributes: { "exception.type": type, "exception.message": message },
    });
    expect(shape(spans()).slice(1)).toEqual([
      {
        name: "chat gpt-4.1",
        kind: 2,
        parent: "invoke_agent",
        attributes: { ...base, "error.type": "OverloadedError" },
        status: "error",
        events: [exception("OverloadedError", "529 overloaded")],
      },
      {
        name: "retry_wait",
        kind: 0,
        parent: "invoke_agent",
        attributes: { "gen_ai.conversation.id": "failover", "agentloop.step": 1 },
        status: "unset",
        events: [],
      },
      {
        name: "chat gpt-4.1",
        kind: 2,
        parent: "invoke_agent",
        attributes: { ...base, "error.type": "AuthenticationError" },
        status: "error",
        events: [exception("AuthenticationError", "401 bad key")],
      },
      {
        name: "chat claude-sonnet-4-5",
        kind: 2,
        parent: "invoke_agent",
        attributes: {
          ...base,
          "gen_ai.request.model": "claude-sonnet-4-5",
          "agentloop.model.fallback": 1,
          "gen_ai.response.finish_reasons": ["stop"],
          "gen_ai.usage.input_tokens": 20,
          "gen_ai.usage.output_tokens": 8,
        },
        status: "unset",
        events: [],
      },
    ]);
    // The span covers the wait the run logged: 20 ms with equal jitter, so between 10 and 20 (a
    // timer's millisecond of rounding allowed for).
    const wait = only(spans(), "retry_wait");
    const waited = events.find((event) => event.type === "retry.waited");
    const delayMs = waited?.type === "retry.waited" ? (waited.delayMs ?? 0) : 0;
    expect(delayMs).toBeGreaterThanOrEqual(10);
    expect(delayMs).toBeLessThanOrEqual(20);
    expect(ms(wait.endTime) - ms(wait.startTime)).toBeGreaterThanOrEqual(delayMs - 1);
    expect(only(spans(), "invoke_agent").attributes["agentloop.status"]).toBe("done");
  });

  it("are the same spans from the run's log", async () => {
    for (const captureContent of [false, true]) {
      const { telemetry, spans, reset, events } = await failingOver(captureContent);
      const live = trees(spans());
      reset();
      telemetry.spansFromLog("failover", events);
      expect(trees(spans())).toEqual(live);
      const wait = only(spans(), "retry_wait");
      const at = (type: string) => Date.parse(events.find((event) => event.type === type)?.at ?? "");
      expect([ms(wait.startTime), ms(wait.endTime)]).toEqual([at("model.failed"), at("retry.waited")]);
    }
  });

  it("shows the provider's retry-after as the backoff's span apart from the calls, and leaves a turn that recovered unmarked", async () => {
    // Peers trace one span over all attempts, so that the backoff counts as the model's latency.
    const { telemetry, spans } = inMemory();
    const store = new MemoryEventStore();
    const limited = Object.assign(new OverloadedError("429 slow down"), { retryAfterMs: 40 });
    const model = flaky([limited]);
    const options = { store, runId: "after", retry: { attempts: 1, initialDelayMs: 1 } };
    await telemetry.runAgent("Hi", model, new ToolRegistry(), options);
    const [failed, answered] = spans().filter((span) => span.name === "chat gpt-4.1");
    const wait = only(spans(), "retry_wait");
    expect(ms(wait.endTime) - ms(wait.startTime)).toBeGreaterThanOrEqual(39);
    expect(ms(failed?.endTime ?? [0, 0])).toBeLessThanOrEqual(ms(wait.startTime) + 1);
    expect(ms(wait.endTime)).toBeLessThanOrEqual(ms(answered?.startTime ?? [0, 0]) + 1);
    expect(only(spans(), "invoke_agent").status).toEqual({ code: 0 });
    const events = await store.read("after");
    expect(events.find((event) => event.type === "model.failed")).toMatchObject({ retryAfterMs: 40 });
  });

  it("ends the turn with the ModelError of the last attempt, every attempt on its own span", async () => {
    const { telemetry, spans } = inMemory();
    const model = flaky([new OverloadedError("529 overloaded"), new OverloadedError("529 still overloaded")]);
    const run = telemetry.runAgent("Hi", model, new ToolRegistry(), { retry: { attempts: 1, initialDelayMs: 1 } });
    await expect(run).rejects.toBeInstanceOf(ModelError);
    const chats = spans().filter((span) => span.name === "chat gpt-4.1");
    expect(chats.map((span) => span.status)).toEqual([
      { code: 2, message: "529 overloaded" },
      { code: 2, message: "529 still overloaded" },
    ]);
    expect(only(spans(), "invoke_agent").attributes["error.type"]).toBe("ModelError");
  });
});

/** A tool whose every result is about 2 KB, so that a few calls pass the compaction's trigger. */
function pages(): ToolRegistry {
  const registry = new ToolRegistry();
  registry.register(
    "fetch_page",
    "Fetch a page.",
    { type: "object", properties: { n: { type: "number" } } },
    ({ n }: { n?: number }) => `page ${n}: ${"x".repeat(2000)}`,
  );
  return registry;
}

const reading = () =>
  scriptedModel([
    ...[1, 2, 3, 4, 5].map((n) => asks(toolCall(`c${n}`, "fetch_page", { n }))),
    final("Five pages read."),
  ]);

async function compacting(captureContent: boolean, strategy: "summarize" | "trim") {
  const memory = inMemory({ captureContent, summarizerModel: "gpt-4.1-mini" });
  const store = new MemoryEventStore();
  const summarizer = scriptedModel(
    Array.from({ length: 5 }, () => ({
      ...final("Pages read so far: all x."),
      usage: { inputTokens: 900, outputTokens: 7 },
    })),
  );
  const result = await memory.telemetry.runAgent("Read five pages.", reading(), pages(), {
    store,
    runId: "long",
    tokenBudget: Number.POSITIVE_INFINITY,
    compaction: { triggerTokens: 1500, strategy, keepRecent: 2, summarizer },
  });
  return { ...memory, result, events: await store.read("long") };
}

describe("compaction", () => {
  it("records the summarizer's call as a chat span of its own model with its tokens, and each compaction as an event", async () => {
    const { spans, result, events } = await compacting(false, "summarize");
    expect(result.status).toBe("done");
    const compactions = events.filter((event) => event.type === "context.compacted");
    expect(compactions.length).toBeGreaterThan(0);
    const summaries = spans().filter((span) => span.name === "chat gpt-4.1-mini");
    expect(summaries.map((span) => span.attributes)).toEqual(
      compactions.map((event) => ({
        "gen_ai.operation.name": "chat",
        "gen_ai.provider.name": "openai",
        "gen_ai.request.model": "gpt-4.1-mini",
        "gen_ai.conversation.id": "long",
        "agentloop.compaction.step": event.step,
        "agentloop.compaction.kept_from": event.keptFrom,
        "gen_ai.usage.input_tokens": 900,
        "gen_ai.usage.output_tokens": 7,
      })),
    );
    const root = only(spans(), "invoke_agent");
    expect(summaries.every((span) => span.parentSpanContext?.spanId === root.spanContext().spanId)).toBe(true);
    expect(root.events.map((event) => [event.name, event.attributes])).toEqual(
      compactions.map((event) => [
        "agentloop.context.compacted",
        { "agentloop.step": event.step, "agentloop.compaction.kept_from": event.keptFrom },
      ]),
    );
    // The summarizer's tokens are not the model's: the turn counts its model calls' only.
    const chats = spans().filter((span) => span.name === "chat gpt-4.1");
    expect(chats).toHaveLength(6);
  });

  it("records a trim as the event only: no model was asked", async () => {
    const { spans } = await compacting(false, "trim");
    expect(spans().filter((span) => span.name === "chat gpt-4.1-mini")).toEqual([]);
    expect(only(spans(), "invoke_agent").events.map((event) => event.name)).toContain("agentloop.context.compacted");
  });

  it("gives the same spans from the log, each model call with the compacted view it was shown", async () => {
    for (const strategy of ["summarize", "trim"] as const) {
      for (const captureContent of [false, true]) {
        const { telemetry, spans, reset, events } = await compacting(captureContent, strategy);
        const live = trees(spans());
        reset();
        telemetry.spansFromLog("long", events);
        expect(trees(spans())).toEqual(live);
      }
    }
    const { spans } = await compacting(true, "summarize");
    const last = spans()
      .filter((span) => span.name === "chat gpt-4.1")
      .at(-1);
    const shown = JSON.parse(String(last?.attributes["gen_ai.input.messages"])) as unknown[];
    expect(JSON.stringify(shown)).toContain("Pages read so far");
    const summary = spans().find((span) => span.name === "chat gpt-4.1-mini");
    expect(JSON.parse(String(summary?.attributes["gen_ai.output.messages"]))).toEqual([
      { role: "assistant", parts: [{ type: "text", content: "Pages read so far: all x." }], finish_reason: "stop" },
    ]);
  });
});

describe("a conversation's next turn", () => {
  it("names the fallback model that answered a later turn, given to continueAgent", async () => {
    const { telemetry, spans, reset } = inMemory({ fallbackModels: ["claude-sonnet-4-5"] });
    const store = new MemoryEventStore();
    const options = { store, runId: "next", retry: { attempts: 0 }, fallbackModels: [scriptedModel([final("Hi.")])] };
    await telemetry.runAgent("Hi", scriptedModel([final("Hello.")]), new ToolRegistry(), options);
    const fallback = scriptedModel([final("Still here.")]);
    const down = flaky([new OverloadedError("529 overloaded")]);
    await telemetry.continueAgent("next", "Still there?", down, new ToolRegistry(), {
      store,
      fallbackModels: [fallback],
    });
    const names = () => spans().map((span) => span.name);
    expect(names()).toEqual(["chat gpt-4.1", "invoke_agent", "chat gpt-4.1", "chat claude-sonnet-4-5", "invoke_agent"]);
    const live = trees(spans());
    reset();
    telemetry.spansFromLog("next", await store.read("next"));
    expect(trees(spans())).toEqual(live);
  });
});
