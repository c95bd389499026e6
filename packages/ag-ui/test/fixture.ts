import type { BaseEvent } from "@ag-ui/core";
import { EventSchemas } from "@ag-ui/core/schemas";
import { MemoryEventStore, type ModelReply, type ScriptedModel, scriptedModel, ToolRegistry } from "@agentloop/core";
import type { ServeOptions } from "../src/index.js";

/** A weather tool and `send_email`, which needs approval; `sent` lists who was emailed. */
export function emailAgent(replies: ModelReply[]): {
  serve: ServeOptions;
  model: ScriptedModel;
  sent: string[];
  store: MemoryEventStore;
} {
  const sent: string[] = [];
  const registry = new ToolRegistry();
  registry.register(
    "get_weather",
    "The weather in a city.",
    { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
    ({ city }: { city: string }) => ({ city, celsius: 31 }),
  );
  registry.register(
    "send_email",
    "Send an email.",
    { type: "object", properties: { to: { type: "string" } }, required: ["to"] },
    ({ to }: { to: string }) => {
      sent.push(to);
      return { sent: to };
    },
    { needsApproval: true },
  );
  const model = scriptedModel(replies);
  const store = new MemoryEventStore();
  return { serve: { model, registry, store }, model, sent, store };
}

/** The events of an SSE body, each checked against `@ag-ui/core`'s schemas (throws on the first that does not validate). */
export async function readEvents(response: Response): Promise<BaseEvent[]> {
  const text = await response.text();
  return text
    .split("\n\n")
    .filter((frame) => frame.startsWith("data: "))
    .map((frame) => EventSchemas.parse(JSON.parse(frame.slice("data: ".length))) as BaseEvent);
}

/** A RunAgentInput with one user message. */
export function input(
  threadId: string,
  runId: string,
  text: string,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    threadId,
    runId,
    messages: [{ id: `${runId}-u`, role: "user", content: text }],
    tools: [],
    context: [],
    ...extra,
  };
}

export function post(body: unknown): Request {
  return new Request("http://127.0.0.1/agent", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}
