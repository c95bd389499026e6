import { chatHandler, loadChat } from "@agentloop/ai-sdk";
import {
  agentTool,
  askUserTool,
  type Guardrail,
  jsonSchema,
  MemoryEventStore,
  type Model,
  ModelError,
  type ModelReply,
  ToolRegistry,
  tool,
} from "@agentloop/core";
import type { AgentOptions } from "@agentloop/core/machine";
import { asks, final, makeWeatherRegistry, scriptedModel, toolCall, weatherScript } from "@agentloop/core/testing";
import type { UIMessage } from "ai";
import { afterEach, describe, expect, it } from "vitest";
import { listen, NodeChat } from "./chat-server.js";
import { until } from "./gate.js";

// What a page reads live equals what loadChat rebuilds from the log, in every run shape.

const servers: { close: () => Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

/** What a page shows of messages: roles and parts, without the ids a page makes up itself. */
function shown(messages: readonly UIMessage[]): unknown[] {
  return messages.map((message) => ({ role: message.role, parts: message.parts }));
}

const SEAT = {
  type: "object",
  properties: { seat: { type: "string" } },
  required: ["seat"],
  additionalProperties: false,
};

/** `book`: asks which seat while it runs (`ctx.ask`), then books it. */
function bookingTool() {
  return tool({
    name: "book",
    description: "Books a flight.",
    parameters: { type: "object", properties: { to: { type: "string" } }, required: ["to"] },
    execute: async ({ to }: { to: string }, { ask }) => {
      const { seat } = (await ask(`Which seat to ${to}?`, SEAT)) as { seat: string };
      return { booked: to, seat };
    },
  });
}

function emailTool() {
  return tool({
    name: "send_email",
    description: "Send an email.",
    parameters: { type: "object", properties: { to: { type: "string" } }, required: ["to"] },
    execute: ({ to }: { to: string }) => `sent to ${to}`,
    needsApproval: true,
  });
}

/** What a page does in a turn. */
type Step =
  | { readonly send: string }
  | { readonly approve: string; readonly approved: boolean }
  | { readonly answer: string; readonly tool: string; readonly output: unknown };

interface Shape {
  readonly model: Model;
  readonly registry: ToolRegistry;
  readonly options?: AgentOptions;
  readonly steps: readonly Step[];
}

async function liveAndLoaded(chatId: string, shape: Shape): Promise<{ live: UIMessage[]; loaded: UIMessage[] }> {
  const store = new MemoryEventStore();
  const { model, registry, options } = shape;
  const server = await listen(chatHandler({ model, registry, store, ...(options === undefined ? {} : { options }) }));
  servers.push(server);
  const chat = new NodeChat(chatId, server.url);
  for (const step of shape.steps) {
    if ("send" in step) await chat.sendMessage({ text: step.send });
    else if ("approve" in step) {
      await chat.addToolApprovalResponse({ id: step.approve, approved: step.approved });
      await chat.sendMessage();
    } else {
      await chat.addToolOutput({ tool: step.tool as never, toolCallId: step.answer, output: step.output as never });
      await chat.sendMessage();
    }
    await until(() => chat.status === "ready" || chat.status === "error");
    expect(chat.error).toBeUndefined();
  }
  return { live: structuredClone(chat.messages), loaded: await loadChat({ store, chatId }) };
}

function child(replies: ModelReply[], registry: ToolRegistry): ToolRegistry {
  return new ToolRegistry([
    agentTool({ name: "research", description: "R.", model: scriptedModel(replies), registry }),
  ]);
}

function failingOnce(then: Model): Model {
  let calls = 0;
  return (messages, tools, options) => {
    calls++;
    if (calls === 2) {
      options.onDelta?.({ type: "text-delta", text: "half an answer" });
      throw new ModelError("overloaded", { retryable: true, messages, step: 2 });
    }
    return then(messages, tools, options);
  };
}

const noLima: Guardrail = {
  name: "no-lima",
  check: (text) => (text.includes("Lima") ? { tripped: true, reason: "names Lima" } : { tripped: false }),
};

const shapes: [string, () => Shape][] = [
  [
    "tools and text over two turns",
    () => ({
      model: scriptedModel([...weatherScript(), final("Still 86 F.")]),
      registry: makeWeatherRegistry().registry,
      steps: [{ send: "Pune in F?" }, { send: "And now?" }],
    }),
  ],
  [
    "parallel calls and a throwing tool",
    () => ({
      model: scriptedModel([
        asks(toolCall("a", "get_weather", { city: "Pune" }), toolCall("b", "get_weather", { city: "Oslo" })),
        final("Pune 30; Oslo unknown."),
      ]),
      registry: makeWeatherRegistry().registry,
      steps: [{ send: "Pune and Oslo?" }],
    }),
  ],
  [
    "an approval given, then one refused",
    () => ({
      model: scriptedModel([
        asks(toolCall("e1", "send_email", { to: "ana" })),
        final("Sent."),
        asks(toolCall("e2", "send_email", { to: "bo" })),
        final("Not sent."),
      ]),
      registry: new ToolRegistry([emailTool()]),
      steps: [
        { send: "Mail ana" },
        { approve: "e1", approved: true },
        { send: "Mail bo" },
        { approve: "e2", approved: false },
      ],
    }),
  ],
  [
    "an ask-user question answered",
    () => ({
      model: scriptedModel([asks(toolCall("q1", "ask_user", { question: "Where to?" })), final("Lima it is.")]),
      registry: new ToolRegistry([askUserTool()]),
      steps: [{ send: "Plan a trip." }, { answer: "q1", tool: "ask_user", output: "Lima" }],
    }),
  ],
  [
    "a question a running tool asks, answered",
    () => ({
      model: scriptedModel([asks(toolCall("b1", "book", { to: "Lima" })), final("Booked 3A.")]),
      registry: new ToolRegistry([bookingTool()]),
      steps: [{ send: "Book Lima." }, { answer: "b1", tool: "book", output: { seat: "3A" } }],
    }),
  ],
  [
    "a question a running tool asks, still waiting",
    () => ({
      model: scriptedModel([asks(toolCall("b1", "book", { to: "Lima" }))]),
      registry: new ToolRegistry([bookingTool()]),
      steps: [{ send: "Book Lima." }],
    }),
  ],
  [
    "a child's tool calls",
    () => ({
      model: scriptedModel([asks(toolCall("r1", "research", { task: "Pune?" })), final("Pune is at 30 C.")]),
      registry: child(
        [asks(toolCall("k1", "get_weather", { city: "Pune" })), final("30 C.")],
        makeWeatherRegistry().registry,
      ),
      steps: [{ send: "Pune?" }],
    }),
  ],
  [
    "a child's approval, given",
    () => ({
      model: scriptedModel([asks(toolCall("r1", "research", { task: "Mail ana." })), final("Done.")]),
      registry: child(
        [asks(toolCall("e1", "send_email", { to: "ana" })), final("Sent.")],
        new ToolRegistry([emailTool()]),
      ),
      steps: [{ send: "Mail ana." }, { approve: "r1/e1", approved: true }],
    }),
  ],
  [
    "a child's approval, refused, and one still waiting on the next turn",
    () => ({
      model: scriptedModel([
        asks(toolCall("r1", "research", { task: "Mail ana." })),
        final("Not sent."),
        asks(toolCall("r2", "research", { task: "Mail bo." })),
      ]),
      registry: child(
        [
          asks(toolCall("e1", "send_email", { to: "ana" })),
          final("Refused."),
          asks(toolCall("e2", "send_email", { to: "bo" })),
        ],
        new ToolRegistry([emailTool()]),
      ),
      steps: [{ send: "Mail ana." }, { approve: "r1/e1", approved: false }, { send: "Mail bo." }],
    }),
  ],
  [
    "compaction between steps",
    () => ({
      model: scriptedModel([
        ...weatherScript().slice(0, 2),
        { content: "Pune was looked up; 30 C.", toolCalls: [] },
        final("It is 86 F in Pune."),
      ]),
      registry: makeWeatherRegistry().registry,
      options: { compaction: { triggerTokens: 120, keepRecent: 2 } },
      steps: [{ send: "Pune in F?" }],
    }),
  ],
  [
    "a child's ask-user question, answered",
    () => ({
      model: scriptedModel([asks(toolCall("r1", "research", { task: "find the mail" })), final("Found.")]),
      registry: child(
        [asks(toolCall("q1", "ask_user", { question: "Which inbox?" })), final("In work.")],
        new ToolRegistry([askUserTool()]),
      ),
      steps: [{ send: "Find the mail." }, { answer: "r1/q1", tool: "ask_user", output: "work" }],
    }),
  ],
  [
    "a question a child's running tool asks, answered",
    () => ({
      model: scriptedModel([asks(toolCall("r1", "research", { task: "Book Lima." })), final("Booked.")]),
      registry: child(
        [asks(toolCall("b1", "book", { to: "Lima" })), final("Seat 3A.")],
        new ToolRegistry([bookingTool()]),
      ),
      steps: [{ send: "Book Lima." }, { answer: "r1/b1", tool: "book", output: { seat: "3A" } }],
    }),
  ],
  [
    "a retried model call",
    () => ({
      model: failingOnce(scriptedModel(weatherScript())),
      registry: makeWeatherRegistry().registry,
      options: { retry: { attempts: 2, initialDelayMs: 1 } },
      steps: [{ send: "Pune in F?" }],
    }),
  ],
  [
    "a tripped guardrail",
    () => ({
      model: scriptedModel([final("Lima.")]),
      registry: new ToolRegistry(),
      options: { guardrails: { output: [noLima] } },
      steps: [{ send: "Where?" }],
    }),
  ],
  [
    "typed output",
    () => ({
      model: scriptedModel([final('{"city":"Pune"}')]),
      registry: new ToolRegistry(),
      options: {
        output: jsonSchema({ type: "object", properties: { city: { type: "string" } }, required: ["city"] }),
      },
      steps: [{ send: "Which?" }],
    }),
  ],
];

describe("loadChat rebuilds what the page read live", () => {
  for (const [name, shape] of shapes) {
    it(`${name}: the loaded messages equal the live ones`, async () => {
      const { live, loaded } = await liveAndLoaded(`live-${name.replace(/[^a-z]+/g, "-")}`, shape());
      expect(shown(loaded)).toEqual(shown(live));
    });
  }

  it("a question a running tool asks reaches the page with its text and schema, live and loaded, as a data-question part", async () => {
    const { live, loaded } = await liveAndLoaded("asks", {
      model: scriptedModel([asks(toolCall("b1", "book", { to: "Lima" }))]),
      registry: new ToolRegistry([bookingTool()]),
      steps: [{ send: "Book Lima." }],
    });
    const question = { toolCallId: "b1", question: "Which seat to Lima?", schema: SEAT };
    for (const messages of [live, loaded]) {
      expect(messages[1]?.parts).toContainEqual({ type: "data-question", id: "b1", data: question });
      expect(messages[1]?.parts).toContainEqual(
        expect.objectContaining({ type: "tool-book", toolCallId: "b1", state: "input-available" }),
      );
    }
  });
});
