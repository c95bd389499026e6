import {
  asks,
  EventLogError,
  final,
  MemoryEventStore,
  type ModelReply,
  scriptedModel,
  ToolRegistry,
  toolCall,
} from "@agentloop/core";
import type { StoredEvent } from "@agentloop/core/store";
import { describe, expect, it } from "vitest";
import { inMemory, ms, only, shape, trees, weather } from "./in-memory.js";

/** A run with a bit of everything: parallel calls, a failing one, a denied one, usage, two turns. */
async function busyRun(captureContent: boolean) {
  const memory = inMemory({ captureContent, agentName: "weather" });
  const registry = weather({ Pune: 80, Delhi: 30 });
  registry.register("send_report", "Send the report.", { type: "object" }, () => "sent", { needsApproval: true });
  const store = new MemoryEventStore();
  const first: ModelReply = {
    ...asks(
      toolCall("p", "get_weather", { city: "Pune" }),
      toolCall("d", "get_weather", { city: "Delhi" }),
      toolCall("a", "get_weather", { city: "Atlantis" }),
      toolCall("r", "send_report"),
    ),
    usage: { inputTokens: 100, outputTokens: 20 },
  };
  const model = scriptedModel([first, final("Delhi is hottest."), final("Still Delhi.")]);
  const approve = () => ({ approved: false, reason: "not now" });
  await memory.telemetry.runAgent("Which is hottest?", model, registry, { store, runId: "busy", approve });
  await memory.telemetry.continueAgent("busy", "Sure?", model, registry, { store });
  return { ...memory, events: await store.read("busy") };
}

describe("spans from a logged run", () => {
  it("are the live run's spans: the same tree, names, kinds, attributes, statuses and events", async () => {
    for (const captureContent of [false, true]) {
      const { telemetry, spans, reset, events } = await busyRun(captureContent);
      const live = trees(spans());
      expect(live).toHaveLength(2);
      expect(live.map((turn) => (turn.children as unknown[]).length)).toEqual([5, 1]);
      const failed = shape(spans()).filter((span) => span.status === "error");
      expect(failed.map((span) => span.attributes["gen_ai.tool.call.id"])).toEqual(["a"]);
      reset();
      telemetry.spansFromLog("busy", events);
      expect(trees(spans())).toEqual(live);
    }
  });

  it("takes each span's times from the events' times", async () => {
    const { telemetry, spans, reset, events } = await busyRun(false);
    reset();
    telemetry.spansFromLog("busy", events);
    const at = (type: StoredEvent["type"], nth = 0) => Date.parse(events.filter((e) => e.type === type)[nth]?.at ?? "");
    const roots = spans().filter((span) => span.name === "invoke_agent weather");
    expect(roots.map((span) => [ms(span.startTime), ms(span.endTime)])).toEqual([
      [at("run.started"), at("run.finished", 0)],
      [at("user.messaged"), at("run.finished", 1)],
    ]);
    // A model call starts with the event before its reply: run.started, the batch's last result, the user's message.
    const replies = events.flatMap((event, index) => (event.type === "model.replied" ? [index] : []));
    const chats = spans().filter((span) => span.name === "chat gpt-4.1");
    expect(chats.map((span) => [ms(span.startTime), ms(span.endTime)])).toEqual(
      replies.map((index) => [Date.parse(events[index - 1]?.at ?? ""), Date.parse(events[index]?.at ?? "")]),
    );
    const pune = spans().find((span) => span.attributes["gen_ai.tool.call.id"] === "p");
    const timeOf = (type: string) =>
      Date.parse(events.find((e) => e.type === type && "callId" in e && e.callId === "p")?.at ?? "");
    expect([ms(pune?.startTime ?? [0, 0]), ms(pune?.endTime ?? [0, 0])]).toEqual([
      timeOf("tool.started"),
      timeOf("tool.finished"),
    ]);
  });

  it("gives parallel calls sibling spans that overlap, from the log's times", async () => {
    const { telemetry, spans, reset, events } = await busyRun(false);
    reset();
    telemetry.spansFromLog("busy", events);
    const [pune, delhi] = ["p", "d"].map((id) => spans().find((span) => span.attributes["gen_ai.tool.call.id"] === id));
    expect(pune?.parentSpanContext?.spanId).toBe(delhi?.parentSpanContext?.spanId);
    expect(ms(delhi?.startTime ?? [0, 0])).toBeLessThan(ms(pune?.endTime ?? [0, 0]));
    expect(ms(pune?.startTime ?? [0, 0])).toBeLessThan(ms(delhi?.endTime ?? [0, 0]));
    // Pune's call takes longer; a stalled event loop may let both timers fire in the same millisecond.
    expect(ms(delhi?.endTime ?? [0, 0])).toBeLessThanOrEqual(ms(pune?.endTime ?? [0, 0]));
  });

  it("ends a log that stops mid-run at its last event: a paused turn, a call the process died in", async () => {
    const { telemetry, spans } = inMemory();
    const registry = weather();
    registry.register("send_report", "Send the report.", { type: "object" }, () => "sent", { needsApproval: true });
    const store = new MemoryEventStore();
    const model = scriptedModel([asks(toolCall("p", "get_weather", { city: "Pune" }), toolCall("r", "send_report"))]);
    await telemetry.runAgent("Report Pune.", model, registry, { store, runId: "paused" });
    const events = await store.read("paused");
    // As if the process died while Pune's weather was being fetched.
    const cut = events.slice(
      0,
      events.findIndex((event) => event.type === "tool.finished"),
    );
    for (const log of [events, cut]) {
      const { telemetry: replaying, spans: replayed } = inMemory();
      replaying.spansFromLog("paused", log);
      const root = only(replayed(), "invoke_agent");
      expect(ms(root.endTime)).toBe(Date.parse(log.at(-1)?.at ?? ""));
      expect(root.attributes).not.toHaveProperty("agentloop.status");
      expect(root.status.code).toBe(0);
      const tool = only(replayed(), "execute_tool get_weather");
      expect(ms(tool.endTime)).toBeLessThanOrEqual(ms(root.endTime));
      expect(tool.status.code).toBe(0);
    }
    expect(only(spans(), "invoke_agent").attributes["agentloop.status"]).toBe("awaiting_approval");
  });

  it("refuses a log that does not fit its run, or an event with no valid time, before sending any span", async () => {
    const { events } = await busyRun(false);
    const { telemetry, spans } = inMemory();
    const dropped = events.filter((event) => event.type !== "tool.started");
    expect(() => telemetry.spansFromLog("busy", dropped)).toThrow(EventLogError);
    expect(() => telemetry.spansFromLog("busy", [])).toThrow("run 'busy': event 0 (missing) must be 'run.started'");
    expect(() => telemetry.spansFromLog("busy", [...events, events[1] as StoredEvent])).toThrow(EventLogError);
    const untimed = events.map((event, index) => (index === 3 ? { ...event, at: "yesterday" } : event));
    expect(() => telemetry.spansFromLog("busy", untimed)).toThrow(
      "run 'busy': event 3 has no valid time: 'at' must be an ISO 8601 time",
    );
    expect(() => telemetry.spansFromLog("", events)).toThrow(TypeError);
    expect(() => telemetry.spansFromLog("busy", "log" as unknown as StoredEvent[])).toThrow(TypeError);
    expect(spans()).toEqual([]);
  });

  it("sends nothing for an empty registry's run beyond its turn and its model call", async () => {
    const { telemetry, spans } = inMemory();
    const store = new MemoryEventStore();
    await telemetry.runAgent("Hi", scriptedModel([final("Hello.")]), new ToolRegistry(), { store, runId: "hi" });
    const live = shape(spans());
    const { telemetry: replaying, spans: replayed } = inMemory();
    replaying.spansFromLog("hi", await store.read("hi"));
    expect(trees(replayed())).toEqual(trees(spans()));
    expect(live.map((span) => span.name)).toEqual(["invoke_agent", "chat gpt-4.1"]);
  });
});
