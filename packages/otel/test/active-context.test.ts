import { asks, final, type Model, ToolRegistry, toolCall } from "@agentloop/core";
import { context, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { afterAll, beforeAll, expect, it } from "vitest";
import { inMemory, only } from "./in-memory.js";

// As in an application whose SDK registered Node's context manager (NodeSDK does).
beforeAll(() => {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
});
afterAll(() => {
  context.disable();
});

it("runs the model with its chat span active and the tools with the turn's, under the caller's span", async () => {
  const { telemetry, tracerProvider, spans } = inMemory();
  const tracer = tracerProvider.getTracer("app");
  // What an HTTP client's instrumentation would do inside the provider's SDK, and inside a tool.
  const model: Model = async (messages) => {
    await new Promise((resolve) => setTimeout(resolve, 1));
    tracer.startSpan(`POST /chat ${messages.length}`).end();
    return messages.length === 2 ? asks(toolCall("c1", "lookup")) : final("Done.");
  };
  const registry = new ToolRegistry();
  registry.register("lookup", "Look something up.", { type: "object" }, async () => {
    await new Promise((resolve) => setTimeout(resolve, 1));
    tracer.startSpan("GET /lookup").end();
    return "found";
  });
  await tracer.startActiveSpan("handle request", async (request) => {
    await telemetry.runAgent("Look it up.", model, registry);
    request.end();
  });
  const idOf = (name: string) => only(spans(), name).spanContext().spanId;
  const parentOf = (name: string) => only(spans(), name).parentSpanContext?.spanId;
  const chats = spans().filter((span) => span.name === "chat gpt-4.1");
  expect(parentOf("invoke_agent")).toBe(idOf("handle request"));
  expect(parentOf("POST /chat 2")).toBe(chats[0]?.spanContext().spanId);
  expect(parentOf("POST /chat 4")).toBe(chats[1]?.spanContext().spanId);
  expect(parentOf("GET /lookup")).toBe(idOf("invoke_agent"));
  expect(trace.getActiveSpan()).toBeUndefined();
});
