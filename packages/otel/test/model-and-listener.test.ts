import {
  type AgentStreamEvent,
  asks,
  final,
  MemoryEventStore,
  type Model,
  type ModelReply,
  scriptedModel,
  toolCall,
} from "@agentloop/core";
import { describe, expect, it } from "vitest";
import { inMemory, only, weather } from "./in-memory.js";

describe("the caller's listener and model", () => {
  it("hands every event on to the caller's onEvent, in order", async () => {
    const { telemetry } = inMemory();
    const heard: string[] = [];
    const model = scriptedModel([asks(toolCall("c1", "get_weather", { city: "Pune" })), final("Hot.")]);
    await telemetry.runAgent("How hot is Pune?", model, weather(), {
      onEvent: (event) => heard.push(event.type === "logged" ? event.event.type : event.type),
    });
    const told = heard.filter((type) => !type.endsWith("-delta"));
    expect(told).toEqual([
      "run.started",
      "step-started",
      "model.replied",
      "tool.started",
      "tool.finished",
      "step-started",
      "model.replied",
      "run.finished",
      "finished",
    ]);
    expect(heard).toContain("text-delta");
  });

  it("does not ask the model to stream when nobody listens, and does when the caller does", async () => {
    const { telemetry } = inMemory();
    const asked: boolean[] = [];
    const model: Model = (_messages, _tools, options) => {
      asked.push(options.onDelta !== undefined);
      options.onDelta?.({ type: "text-delta", text: "Hi." });
      return final("Hi.");
    };
    await telemetry.runAgent("Hi", model, weather());
    const deltas: AgentStreamEvent[] = [];
    await telemetry.runAgent("Hi", model, weather(), { onEvent: (event) => deltas.push(event) });
    expect(asked).toEqual([false, true]);
    expect(deltas.filter((event) => event.type === "text-delta")).toEqual([
      { type: "text-delta", step: 1, text: "Hi." },
    ]);
  });

  it("still gives the model the run's signal, which aborts when the run is cancelled", async () => {
    const { telemetry, spans } = inMemory();
    const controller = new AbortController();
    const model: Model = (_messages, _tools, { signal }) =>
      new Promise<ModelReply>((_resolve, reject) => {
        signal.addEventListener("abort", () => reject(new Error("aborted")), { once: true });
        controller.abort();
      });
    const result = await telemetry.runAgent("Hi", model, weather(), { signal: controller.signal });
    expect(result.status).toBe("cancelled");
    expect(only(spans(), "invoke_agent").attributes["agentloop.status"]).toBe("cancelled");
  });

  it("keeps the model's own properties: a scripted model's record, an adapter's reply limit", async () => {
    const { telemetry } = inMemory();
    const model = Object.assign(scriptedModel([final("Hi.")]), { maxReplyTokens: 512 });
    const store = new MemoryEventStore();
    await telemetry.runAgent("Hi", model, weather(), { store, runId: "r" });
    expect(model.seen).toHaveLength(1);
    const [started] = await store.read("r");
    expect(started?.type === "run.started" && started.settings.replyReserve).toBe(512);
  });

  it("fails the run as core does when the caller's onEvent is not a function", async () => {
    const { telemetry, spans } = inMemory();
    const onEvent = "loud" as unknown as () => void;
    await expect(telemetry.runAgent("Hi", scriptedModel([final("Hi.")]), weather(), { onEvent })).rejects.toThrow(
      "onEvent must be a function",
    );
    expect(only(spans(), "invoke_agent").attributes["error.type"]).toBe("TypeError");
  });

  it("traces a streamed run, and leaves its result and its events to the caller", async () => {
    const { telemetry, spans } = inMemory();
    const model = scriptedModel([asks(toolCall("c1", "get_weather", { city: "Pune" })), final("Hot in Pune.")]);
    const stream = telemetry.streamAgent("How hot is Pune?", model, weather(), { runId: "s-1" });
    let text = "";
    for await (const event of stream) if (event.type === "text-delta") text += event.text;
    expect(text).toBe("Hot in Pune.");
    expect((await stream.result).status).toBe("done");
    expect(spans().map((span) => span.name)).toEqual([
      "chat gpt-4.1",
      "execute_tool get_weather",
      "chat gpt-4.1",
      "invoke_agent",
    ]);
    expect(only(spans(), "invoke_agent").attributes["gen_ai.conversation.id"]).toBe("s-1");
  });

  it("ends a failed stream's span with the error, and the caller who only iterates sees it thrown", async () => {
    const { telemetry, spans } = inMemory();
    const stream = telemetry.streamAgent("Hi", scriptedModel([]), weather());
    await expect(async () => {
      for await (const _event of stream) {
      }
    }).rejects.toThrow("script ran out");
    await expect(stream.result).rejects.toThrow("script ran out");
    expect(only(spans(), "invoke_agent").attributes["error.type"]).toBe("ModelError");
  });
});
