import { asks, final, MemoryEventStore, scriptedModel, ToolRegistry, toolCall } from "@agentloop/core";
import { makeMailRegistry } from "@agentloop/core/testing";
import { describe, expect, it } from "vitest";
import { CLOCK, inMemory, ms, only, weather } from "./in-memory.js";

describe("a parallel run", () => {
  it("gives the calls of one reply sibling execute_tool spans that overlap in time", async () => {
    const { telemetry, spans } = inMemory();
    const model = scriptedModel([
      asks(
        toolCall("p", "get_weather", { city: "Pune" }),
        toolCall("d", "get_weather", { city: "Delhi" }),
        toolCall("m", "get_weather", { city: "Mumbai" }),
      ),
      final("Delhi and Mumbai are hotter."),
    ]);
    await telemetry.runAgent("Which is hottest?", model, weather({ Pune: 60, Delhi: 20, Mumbai: 40 }));
    const root = only(spans(), "invoke_agent");
    const tools = spans().filter((span) => span.name === "execute_tool get_weather");
    // Exported as they end: Delhi, Mumbai, Pune.
    expect(tools.map((span) => span.attributes["gen_ai.tool.call.id"])).toEqual(["d", "m", "p"]);
    for (const span of tools) expect(span.parentSpanContext?.spanId).toBe(root.spanContext().spanId);
    for (const a of tools) {
      for (const b of tools) expect(ms(a.startTime)).toBeLessThan(ms(b.endTime));
    }
    const [, second] = spans().filter((span) => span.name === "chat gpt-4.1");
    const lastEnd = Math.max(...tools.map((span) => ms(span.endTime)));
    expect(ms(second?.startTime ?? [0, 0])).toBeGreaterThanOrEqual(lastEnd - CLOCK);
  });
});

const emails = () => [
  asks(
    toolCall("e1", "send_email", { to: "ana@example.com" }),
    toolCall("e2", "send_email", { to: "all@example.com" }),
  ),
  final("Sent one email."),
];

describe("approvals", () => {
  it("records each decision as an event on the turn's span, and runs only the approved call", async () => {
    for (const captureContent of [false, true]) {
      const { telemetry, spans } = inMemory({ captureContent });
      const approve = (call: { id: string }) =>
        call.id === "e1" ? { approved: true } : { approved: false, reason: "too many recipients" };
      const { registry, sent } = makeMailRegistry();
      await telemetry.runAgent("Email the team.", scriptedModel(emails()), registry, { approve });
      expect(sent).toEqual(["ana@example.com"]);
      const root = only(spans(), "invoke_agent");
      const reason = captureContent ? { "agentloop.approval.reason": "too many recipients" } : {};
      expect(root.events.map(({ name, attributes }) => ({ name, attributes }))).toEqual([
        {
          name: "agentloop.approval.decided",
          attributes: {
            "gen_ai.tool.call.id": "e1",
            "gen_ai.tool.name": "send_email",
            "agentloop.approval.approved": true,
          },
        },
        {
          name: "agentloop.approval.decided",
          attributes: {
            "gen_ai.tool.call.id": "e2",
            "gen_ai.tool.name": "send_email",
            "agentloop.approval.approved": false,
            ...reason,
          },
        },
      ]);
      expect(only(spans(), "execute_tool send_email").attributes["gen_ai.tool.call.id"]).toBe("e1");
    }
  });

  it("ends a paused turn with its status, and traces the resumed run as a turn of the same conversation", async () => {
    const { telemetry, spans } = inMemory();
    const store = new MemoryEventStore();
    const { registry, sent } = makeMailRegistry();
    const paused = await telemetry.runAgent("Email the team.", scriptedModel(emails()), registry, {
      store,
      runId: "mail-1",
    });
    expect(paused.status).toBe("awaiting_approval");
    const first = only(spans(), "invoke_agent");
    expect(first.attributes["agentloop.status"]).toBe("awaiting_approval");
    expect(first.status.code).toBe(0);
    expect(spans().filter((span) => span.name.startsWith("execute_tool"))).toEqual([]);

    const decisions = { e1: { approved: true }, e2: { approved: false } };
    const resumed = await telemetry.resumeAgent("mail-1", scriptedModel(emails().slice(1)), registry, {
      store,
      decisions,
    });
    expect(resumed.status).toBe("done");
    expect(sent).toEqual(["ana@example.com"]);
    const roots = spans().filter((span) => span.name === "invoke_agent");
    expect(roots.map((span) => span.attributes["gen_ai.conversation.id"])).toEqual(["mail-1", "mail-1"]);
    expect(roots[1]?.attributes["agentloop.status"]).toBe("done");
    expect(roots[1]?.events.map((event) => event.attributes?.["agentloop.approval.approved"])).toEqual([true, false]);
    const tool = only(spans(), "execute_tool send_email");
    expect(tool.parentSpanContext?.spanId).toBe(roots[1]?.spanContext().spanId);
    const chats = spans().filter((span) => span.name === "chat gpt-4.1");
    expect(chats.map((span) => span.parentSpanContext?.spanId)).toEqual(roots.map((span) => span.spanContext().spanId));
  });
});

describe("a conversation of two turns", () => {
  it("is two invoke_agent spans, one per turn, that share the run's id", async () => {
    const { telemetry, spans } = inMemory({ captureContent: true });
    const registry = new ToolRegistry();
    const store = new MemoryEventStore();
    await telemetry.runAgent("My name is Ana.", scriptedModel([final("Nice to meet you, Ana.")]), registry, {
      store,
      runId: "chat-1",
    });
    const second = await telemetry.continueAgent(
      "chat-1",
      "What is my name?",
      scriptedModel([final("Ana.")]),
      registry,
      { store },
    );
    expect(second.answer).toBe("Ana.");
    const roots = spans().filter((span) => span.name === "invoke_agent");
    expect(roots).toHaveLength(2);
    expect(roots[0]?.spanContext().traceId).not.toBe(roots[1]?.spanContext().traceId);
    for (const span of spans()) expect(span.attributes["gen_ai.conversation.id"]).toBe("chat-1");
    expect(JSON.parse(String(roots[1]?.attributes["gen_ai.input.messages"]))).toEqual([
      { role: "user", parts: [{ type: "text", content: "What is my name?" }] },
    ]);
    expect(roots[1]?.attributes).not.toHaveProperty("gen_ai.system_instructions");
    const chats = spans().filter((span) => span.name === "chat gpt-4.1");
    expect(chats.map((span) => span.attributes["agentloop.step"])).toEqual([1, 2]);
    expect(chats[1]?.parentSpanContext?.spanId).toBe(roots[1]?.spanContext().spanId);
    // The second turn's model was shown the whole conversation.
    expect(
      JSON.parse(String(chats[1]?.attributes["gen_ai.input.messages"])).map((m: { role: string }) => m.role),
    ).toEqual(["system", "user", "assistant", "user"]);
  });

  it("ends the span of a turn that cannot go on with the error", async () => {
    const { telemetry, spans } = inMemory();
    const store = new MemoryEventStore();
    const run = telemetry.continueAgent("nobody", "Hi", scriptedModel([]), new ToolRegistry(), { store });
    await expect(run).rejects.toThrow("has no log in this store");
    expect(only(spans(), "invoke_agent").attributes["error.type"]).toBe("EventLogError");
  });
});
