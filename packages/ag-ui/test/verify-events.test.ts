import { HttpAgent, verifyEvents } from "@ag-ui/client";
import type { BaseEvent } from "@ag-ui/core";
import { agentTool, MemoryEventStore, type Model, ModelError, ToolRegistry, tool } from "@agentloop/core";
import type { AgentOptions } from "@agentloop/core/machine";
import type { RunEvent } from "@agentloop/core/store";
import {
  asks,
  final,
  makeWeatherRegistry,
  scriptedModel,
  toolCall,
  WEATHER_TASK,
  weatherScript,
} from "@agentloop/core/testing";
import { from, lastValueFrom, toArray } from "rxjs";
import { afterEach, describe, expect, it } from "vitest";
import { agUiHandler, type ServeOptions } from "../src/index.js";
import { input, post, readEvents } from "./fixture.js";
import { serveOnLoopback } from "./http-server.js";

// Every run shape's events, checked by the official client's own verifier and run through its HttpAgent.

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

/** The events through `verifyEvents`: rejects with the verifier's error on the first event out of order. */
function verified(events: readonly BaseEvent[]): Promise<BaseEvent[]> {
  return lastValueFrom(from(events).pipe(verifyEvents(), toArray()));
}

/** A model that fails its first `failures` calls with a retryable error, then answers as `then` does. */
function failingFirst(failures: number, then: Model, streamed = ""): Model {
  let calls = 0;
  return (messages, tools, options) => {
    calls++;
    if (calls <= failures) {
      if (streamed !== "") options.onDelta?.({ type: "text-delta", text: streamed });
      throw new ModelError("overloaded", { retryable: true, messages, step: 1 });
    }
    return then(messages, tools, options);
  };
}

function weatherServe(model: Model, options: AgentOptions = {}): ServeOptions {
  const { registry } = makeWeatherRegistry();
  return { model, registry, store: new MemoryEventStore(), options };
}

/** Runs one input through HttpAgent and the verifier; returns the events the handler sent. */
async function throughClient(serve: ServeOptions, threadId: string, task: string): Promise<BaseEvent[]> {
  const events = await readEvents(await agUiHandler(serve)(post(input(threadId, "r1", task))));
  await verified(events);
  const server = await serveOnLoopback(agUiHandler({ ...serve, store: new MemoryEventStore() }));
  closers.push(server.close);
  const agent = new HttpAgent({ url: server.url, threadId });
  agent.addMessage({ id: "u1", role: "user", content: task });
  await agent.runAgent({ runId: "r1" });
  return events;
}

/** Each shape: its name, the served agent, and an event its log must hold (so that the shape really happened). */
const shapes: [string, () => ServeOptions, (event: RunEvent) => boolean][] = [
  [
    "a retried model call (its first attempt streamed text, then failed)",
    () =>
      weatherServe(failingFirst(1, scriptedModel(weatherScript()), "half an answer"), {
        retry: { attempts: 2, initialDelayMs: 1 },
      }),
    (event) => event.type === "model.failed",
  ],
  [
    "a fallback model call",
    () =>
      weatherServe(failingFirst(Number.POSITIVE_INFINITY, scriptedModel([])), {
        fallbackModels: [scriptedModel(weatherScript())],
      }),
    (event) => event.type === "model.failed",
  ],
  [
    "parallel calls",
    () =>
      weatherServe(
        scriptedModel([
          asks(toolCall("a", "get_weather", { city: "Pune" }), toolCall("b", "get_weather", { city: "Delhi" })),
          final("Pune 30, Delhi 35."),
        ]),
      ),
    (event) => event.type === "tool.finished" && event.callId === "b",
  ],
  [
    "a throwing tool",
    () => weatherServe(scriptedModel([asks(toolCall("a", "get_weather", { city: "Oslo" })), final("No data.")])),
    (event) => event.type === "tool.finished" && event.isError === true,
  ],
  [
    "compaction",
    () =>
      weatherServe(
        scriptedModel([
          ...weatherScript().slice(0, 2),
          { content: "Pune was looked up; 30 C.", toolCalls: [] },
          final("It is 86 F in Pune."),
        ]),
        { compaction: { triggerTokens: 120, keepRecent: 2 } },
      ),
    (event) => event.type === "context.compacted",
  ],
];

describe("agUiHandler's events pass @ag-ui/client's verifyEvents in every run shape", () => {
  for (const [shape, serve, happened] of shapes) {
    it(`${shape}: verified, and HttpAgent finishes the run`, async () => {
      const served = serve();
      const events = await throughClient(served, "t1", WEATHER_TASK);
      expect((await served.store.read("t1")).some(happened)).toBe(true);
      expect(events.at(-1)).toMatchObject({ type: "RUN_FINISHED", outcome: { type: "success" } });
      const steps = events.filter((event) => event.type === "STEP_STARTED").length;
      expect(events.filter((event) => event.type === "STEP_FINISHED")).toHaveLength(steps);
    });
  }

  it("a retried call is a step that finished and a step that started again, so a client sees each attempt", async () => {
    const serve = weatherServe(failingFirst(1, scriptedModel(weatherScript())), {
      retry: { attempts: 2, initialDelayMs: 1 },
    });
    const events = await readEvents(await agUiHandler(serve)(post(input("t1", "r1", WEATHER_TASK))));
    const steps = events
      .filter((event) => event.type === "STEP_STARTED" || event.type === "STEP_FINISHED")
      .map((event) => `${event.type} ${(event as unknown as { stepName: string }).stepName}`);
    expect(steps.slice(0, 4)).toEqual([
      "STEP_STARTED step 1",
      "STEP_FINISHED step 1",
      "STEP_STARTED step 1",
      "STEP_FINISHED step 1",
    ]);
  });

  it("a child's pause: the interrupt and its resume both verify, and HttpAgent resumes the child to the answer", async () => {
    const store = new MemoryEventStore();
    const childTools = new ToolRegistry();
    const sent: string[] = [];
    childTools.register(
      "send_email",
      "Send an email.",
      { type: "object", properties: { to: { type: "string" } }, required: ["to"] },
      ({ to }: { to: string }) => {
        sent.push(to);
        return { sent: to };
      },
      { needsApproval: true },
    );
    const child = scriptedModel([asks(toolCall("e1", "send_email", { to: "ana" })), final("Sent to ana.")]);
    const registry = new ToolRegistry();
    registry.add(agentTool({ name: "mailer", description: "Mails.", model: child, registry: childTools }));
    const parent = scriptedModel([asks(toolCall("m1", "mailer", { task: "Email ana." })), final("ana has it.")]);
    const handler = agUiHandler({ model: parent, registry, store });
    const first = await readEvents(await handler(post(input("t1", "r1", "Email ana."))));
    await verified(first);
    expect(first.at(-1)).toMatchObject({ outcome: { type: "interrupt", interrupts: [{ id: "m1/e1" }] } });
    const resume = { resume: [{ interruptId: "m1/e1", status: "resolved", payload: { approved: true } }] };
    const second = await readEvents(await handler(post(input("t1", "r2", "Email ana.", resume))));
    await verified(second);
    expect(second.at(-1)).toMatchObject({ outcome: { type: "success" }, result: { answer: "ana has it." } });
    expect(sent).toEqual(["ana"]);
  });

  it("a question a child's running tool asks: the interrupt and the answer's run both verify", async () => {
    const store = new MemoryEventStore();
    const booking = tool({
      name: "book",
      description: "Books a flight.",
      parameters: { type: "object", properties: { to: { type: "string" } }, required: ["to"] },
      execute: async ({ to }: { to: string }, { ask }) => ({ booked: to, seat: await ask(`Which seat to ${to}?`) }),
    });
    const child = scriptedModel([asks(toolCall("b1", "book", { to: "Lima" })), final("Seat 3A.")]);
    const registry = new ToolRegistry([
      agentTool({ name: "travel", description: "Travels.", model: child, registry: new ToolRegistry([booking]) }),
    ]);
    const parent = scriptedModel([asks(toolCall("t1", "travel", { task: "Book Lima." })), final("Booked.")]);
    const handler = agUiHandler({ model: parent, registry, store });
    const first = await readEvents(await handler(post(input("q", "r1", "Book Lima."))));
    await verified(first);
    expect(first.at(-1)).toMatchObject({
      outcome: {
        type: "interrupt",
        interrupts: [{ id: "t1/b1", reason: "user_input", message: "Which seat to Lima?" }],
      },
    });
    const resume = { resume: [{ interruptId: "t1/b1", status: "resolved", payload: "3A" }] };
    const second = await readEvents(await handler(post(input("q", "r2", "Book Lima.", resume))));
    await verified(second);
    expect(second.at(-1)).toMatchObject({ outcome: { type: "success" }, result: { answer: "Booked." } });
  });
});
