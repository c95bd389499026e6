import { describe, expect, it } from "vitest";
import { createActor } from "xstate";
import { ModelError } from "./data/errors.js";
import { EVENT_LOG_SCHEMA_VERSION } from "./data/events.js";
import { createTranscript } from "./data/transcript.js";
import type { Model } from "./data/types.js";
import { agentMachine } from "./decide/agent-machine.js";
import { askApprover, askModel, drivenMachine, RunLoop, runTool } from "./driver.js";
import { MemoryEventStore } from "./log/event-store.js";
import { Journal } from "./log/journal.js";
import { lostResult, type ModelRequest } from "./run/index.js";
import { resolveSettings } from "./run/options/index.js";
import { asks, final, scriptedModel, toolCall } from "./testing/index.js";
import { ToolRegistry } from "./tools/tool-registry.js";

function request(step = 1): ModelRequest {
  const transcript = createTranscript([
    { role: "system", content: "s" },
    { role: "user", content: "u" },
    { role: "assistant", content: "", toolCalls: [toolCall("used", "t")] },
    { role: "tool", toolCallId: "used", name: "t", content: "ok" },
  ]);
  return { type: "callModel", transcript, specs: [], step };
}

function tools(): ToolRegistry {
  const registry = new ToolRegistry();
  registry.register("send", "Sends.", { type: "object" }, () => "sent", { needsApproval: true });
  registry.register("look", "Looks.", { type: "object" }, () => "seen", { idempotent: true });
  registry.register("fail", "Fails.", { type: "object" }, () => {
    throw new Error("down");
  });
  return registry;
}

describe("askModel", () => {
  it("answers with the reply as a frozen copy, every call id unique in the run", async () => {
    const answer = await askModel(scriptedModel([asks(toolCall("used", "t"), toolCall("", "t"))]), request(3));
    expect(answer.event.type).toBe("model.replied");
    if (answer.event.type !== "model.replied") return;
    expect(answer.event.reply.toolCalls.map((call) => call.id)).toEqual(["call_4_0", "call_4_1"]);
    expect(Object.isFrozen(answer.event.reply)).toBe(true);
  });

  it("answers a model that throws, or returns no reply, with a ModelError as data", async () => {
    const throwing: Model = () => {
      throw new TypeError("offline");
    };
    const garbage = (() => ({ content: 7 })) as unknown as Model;
    for (const [model, text] of [
      [throwing, "model call 2 failed: TypeError: offline"],
      [garbage, "model call 2 failed: the model returned an invalid reply"],
    ] as const) {
      const answer = await askModel(model, request(2));
      expect(answer.event).toMatchObject({ type: "model.failed", error: expect.stringContaining(text), model: 0 });
      expect(answer.error).toBeInstanceOf(ModelError);
      expect(answer.error?.message).toContain(text);
      expect(answer.error?.step).toBe(2);
    }
  });
});

describe("runTool", () => {
  it("answers with a tool result, a tool error, or the lost result of a cut-off call that may not run again", async () => {
    const registry = tools();
    expect(await runTool(registry, toolCall("a", "send"))).toEqual({
      type: "event",
      event: { type: "tool.finished", callId: "a", content: '"sent"' },
    });
    expect((await runTool(registry, toolCall("b", "fail"))).event).toMatchObject({ isError: true, failure: "threw" });
    const lost = await runTool(registry, toolCall("c", "send"), { interrupted: true });
    expect(lost.event).toMatchObject({ content: lostResult(toolCall("c", "send")), isError: true, failure: "lost" });
    const again = await runTool(registry, toolCall("d", "look"), { interrupted: true });
    expect(again.event).toEqual({ type: "tool.finished", callId: "d", content: '"seen"' });
  });

  it("gives a call its attempt: the answers it asked for before, its notes and the run's memory scope; without one, a question is asked", async () => {
    const registry = new ToolRegistry();
    const seen: unknown[] = [];
    registry.register("confirm", "Asks, then notes.", { type: "object" }, async (_args, context) => {
      seen.push(context.memoryScope, context.notes);
      const answer = await context.ask("Go on?");
      await context.note("asked");
      return `answered ${String(answer)}`;
    });
    const asked = await runTool(registry, toolCall("q", "confirm"));
    expect(asked.event).toEqual({ type: "tool.asked", callId: "q", question: "Go on?" });
    const noted: unknown[] = [];
    const notes = { notes: ["before"], note: async (value: unknown) => void noted.push(value) };
    const attempt = { answers: ["yes"], notes, memoryScope: { resource: "tenant-a" } };
    const answered = await runTool(registry, toolCall("q", "confirm"), {}, attempt);
    expect(answered.event).toMatchObject({ type: "tool.finished", callId: "q" });
    const content = answered.event.type === "tool.finished" ? answered.event.content : "";
    expect(content).toMatch(/^"answered yes"\n\(confirm asked the user a question while it ran/);
    expect(noted).toEqual(["asked"]);
    expect(seen).toEqual([undefined, [], { resource: "tenant-a" }, ["before"]]);
  });

  it("ends a tool that outlives its timeout with an ERROR observation", async () => {
    const registry = new ToolRegistry();
    registry.register("hang", "Hangs.", { type: "object" }, () => new Promise(() => {}));
    const answer = await runTool(registry, toolCall("h", "hang"), { toolTimeoutMs: 5 });
    expect(answer.event).toMatchObject({ type: "tool.finished", isError: true });
    expect(answer.event.type === "tool.finished" && answer.event.content).toMatch(/^ERROR: .*timed out/);
  });
});

describe("askApprover", () => {
  it("answers a decision as its event, no decision as undecided, and refuses what is not a decision", async () => {
    const call = toolCall("s", "send");
    expect(await askApprover(() => ({ approved: false, reason: "no" }), call)).toEqual({
      type: "event",
      event: { type: "approval.decided", callId: "s", approved: false, reason: "no" },
    });
    expect(await askApprover(undefined, call)).toEqual({ type: "unanswered" });
    expect(await askApprover(() => null, call)).toEqual({ type: "unanswered" });
    const odd = (() => ({ approved: "yes" })) as unknown as () => null;
    await expect(askApprover(odd, call)).rejects.toThrow(TypeError);
  });
});

describe("RunLoop", () => {
  async function loopOf(model: Model, approve?: () => undefined) {
    const registry = tools();
    const settings = resolveSettings("t", model, registry, {});
    const actor = createActor(agentMachine, { input: { settings } });
    const machine = drivenMachine(actor);
    const store = new MemoryEventStore();
    const journal = new Journal(store, "r");
    const loop = new RunLoop(machine, { model, registry, journal, approve });
    await loop.log({ type: "run.started", schemaVersion: EVENT_LOG_SCHEMA_VERSION, settings });
    actor.start();
    return { loop, store };
  }

  it("pauses as an outcome: nothing in flight, only a call no decision was given for", async () => {
    const { loop, store } = await loopOf(
      scriptedModel([asks(toolCall("s", "send"), toolCall("l", "look")), final("x")]),
    );
    const outcome = await loop.run();
    expect(outcome.type).toBe("paused");
    const types = (await store.read("r")).map((event) => event.type);
    expect(types).toEqual(["run.started", "model.replied", "tool.started", "tool.finished"]);
  });

  it("ends with the machine's result, each answer logged before the machine takes it", async () => {
    const { loop, store } = await loopOf(scriptedModel([asks(toolCall("l", "look")), final("done")]));
    const outcome = await loop.run();
    expect(outcome).toMatchObject({ type: "ended", result: { status: "done", answer: "done" } });
    expect((await store.read("r")).map((event) => event.type)).toEqual([
      "run.started",
      "model.replied",
      "tool.started",
      "tool.finished",
      "model.replied",
    ]);
  });
});
