import { describe, expect, it } from "vitest";
import {
  type AgentStreamEvent,
  asks,
  final,
  MemoryEventStore,
  type Model,
  ModelError,
  runAgent,
  scriptedModel,
  streamAgent,
  ToolRegistry,
  toolCall,
} from "../../src/index.js";
import { weatherScript as happyScript, makeWeatherRegistry, WEATHER_TASK as TASK } from "../../src/testing.js";

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

async function collect(stream: AsyncIterable<AgentStreamEvent>): Promise<AgentStreamEvent[]> {
  const events: AgentStreamEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

/** The events in short, deltas left out. */
const outline = (events: readonly AgentStreamEvent[]) =>
  events
    .filter((e) => !e.type.endsWith("-delta"))
    .map((e) => {
      if (e.type === "step-started") return `${e.type} ${e.step}`;
      if (e.type === "decision-requested") return `${e.type} ${e.call.id}`;
      if (e.type === "logged") return "callId" in e.event ? `${e.event.type} ${e.event.callId}` : e.event.type;
      return e.type;
    });

describe("streamAgent", () => {
  it("yields each step, the text as it streams, each call's start and result, and last the result", async () => {
    const { registry } = makeWeatherRegistry();
    const stream = streamAgent(TASK, scriptedModel(happyScript()), registry);
    const events = await collect(stream);
    const result = await stream.result;
    expect(outline(events)).toEqual([
      "run.started",
      "step-started 1",
      "model.replied",
      "tool.started c1",
      "tool.finished c1",
      "step-started 2",
      "model.replied",
      "tool.started c2",
      "tool.finished c2",
      "step-started 3",
      "model.replied",
      "run.finished",
      "finished",
    ]);
    const text = events.flatMap((e) => (e.type === "text-delta" && e.step === 3 ? [e.text] : [])).join("");
    expect(text).toBe(result.answer);
    expect(events.at(-1)).toEqual({ type: "finished", result });
    // Each step's reply is the one logged and shown in the list.
    const replies = events.flatMap((e) =>
      e.type === "logged" && e.event.type === "model.replied" ? [e.event.reply.content] : [],
    );
    expect(replies).toEqual(happyScript().map((reply) => reply.content));
  });

  it("gives the same result as runAgent, and logs no delta", async () => {
    const store = new MemoryEventStore();
    const streamed = streamAgent(TASK, scriptedModel(happyScript()), makeWeatherRegistry().registry, {
      store,
      runId: "s",
    });
    await collect(streamed);
    const plain = await runAgent(TASK, scriptedModel(happyScript()), makeWeatherRegistry().registry);
    const { runId: _runId, ...result } = await streamed.result;
    expect(result).toEqual(plain);
    const types = new Set((await store.read("s")).map((e) => e.type));
    expect([...types].some((type) => type.includes("delta"))).toBe(false);
  });

  it("tells decisions asked for and given, with the call they are for", async () => {
    const registry = new ToolRegistry();
    registry.register("send", "Send.", { type: "object" }, () => "sent", { needsApproval: true });
    const stream = streamAgent("t", scriptedModel([asks(toolCall("s1", "send")), final("ok")]), registry, {
      approve: () => ({ approved: false, reason: "no" }),
    });
    const events = await collect(stream);
    expect(outline(events)).toContain("decision-requested s1");
    expect(events.find((e) => e.type === "logged" && e.event.type === "approval.decided")).toMatchObject({
      event: { callId: "s1", approved: false, reason: "no" },
    });
  });

  it("a failing run rejects result and throws from the iteration; each alone raises no unhandled rejection", async () => {
    const failing: Model = () => {
      throw new Error("API down");
    };
    const stream = streamAgent("t", failing, new ToolRegistry());
    await expect(collect(stream)).rejects.toThrow(ModelError);
    await expect(stream.result).rejects.toThrow(/API down/);
    // Only iterated, or only awaited: nothing is left unhandled (vitest fails the run on one).
    await expect(collect(streamAgent("t", failing, new ToolRegistry()))).rejects.toThrow(ModelError);
    await expect(streamAgent("t", failing, new ToolRegistry()).result).rejects.toThrow(ModelError);
    streamAgent("t", failing, new ToolRegistry());
    await sleep(10);
  });

  it("a slow consumer gets the deltas it missed merged: what waits is at most the text being written", async () => {
    const words = Array.from({ length: 500 }, (_, i) => `w${i}`).join(" ");
    const stream = streamAgent("t", scriptedModel([final(words)]), new ToolRegistry());
    // Nothing is read until the run is over.
    await stream.result;
    const events = await collect(stream);
    const deltas = events.filter((e) => e.type === "text-delta");
    expect(deltas).toHaveLength(1);
    expect(deltas[0]?.type === "text-delta" && deltas[0].text).toBe(words);
  });

  it("a slow consumer gets interleaved deltas merged per kind and call: at most one waits for each, in its kind's order", async () => {
    const pairs = 50_000;
    // Text and reasoning in turn, then the arguments of two calls in turn: what providers stream.
    const model: Model = (_messages, _tools, { onDelta }) => {
      let text = "";
      let reasoning = "";
      for (let i = 0; i < pairs; i++) {
        onDelta?.({ type: "text-delta", text: `t${i % 10}` });
        onDelta?.({ type: "reasoning-delta", text: `r${i % 10}` });
        text += `t${i % 10}`;
        reasoning += `r${i % 10}`;
      }
      onDelta?.({ type: "tool-call-delta", index: 0, id: "a", name: "t", argsText: "" });
      onDelta?.({ type: "tool-call-delta", index: 1, id: "b", name: "t", argsText: "" });
      for (let i = 0; i < pairs; i++) {
        onDelta?.({ type: "tool-call-delta", index: 0, argsText: " " });
        onDelta?.({ type: "tool-call-delta", index: 1, id: "b", argsText: " " });
      }
      return { content: text, toolCalls: [], reasoning: [{ type: "reasoning", text: reasoning }] };
    };
    const stream = streamAgent("t", model, new ToolRegistry());
    await stream.result;
    const events = await collect(stream);
    const deltas = events.filter((e) => e.type.endsWith("-delta"));
    // run.started, step-started, model.replied, run.finished, finished, and one per kind
    expect(events.length).toBeLessThanOrEqual(5 + 4);
    expect(deltas.map((e) => (e.type === "tool-call-delta" ? `${e.type} ${e.index} ${e.id}` : e.type))).toEqual([
      "text-delta",
      "reasoning-delta",
      "tool-call-delta 0 a",
      "tool-call-delta 1 b",
    ]);
    const [text, reasoning, first, second] = deltas;
    expect(text?.type === "text-delta" && text.text.length).toBe(2 * pairs);
    expect(reasoning?.type === "reasoning-delta" && reasoning.text.slice(0, 6)).toBe("r0r1r2");
    expect(first?.type === "tool-call-delta" && first.argsText).toBe(" ".repeat(pairs));
    expect(second?.type === "tool-call-delta" && second.argsText).toBe(" ".repeat(pairs));
  });

  it("a consumer that keeps up sees every delta as it comes", async () => {
    const deltas: string[] = [];
    await runAgent("t", scriptedModel([final("one two three")]), new ToolRegistry(), {
      onEvent: (event) => {
        if (event.type === "text-delta") deltas.push(event.text);
      },
    });
    expect(deltas).toEqual(["one ", "two ", "three"]);
  });

  it("can be iterated once; leaving the loop early stops the iteration, not the run", async () => {
    const { registry, runs } = makeWeatherRegistry();
    const stream = streamAgent(TASK, scriptedModel(happyScript()), registry);
    for await (const event of stream) if (event.type === "step-started") break;
    expect((await stream.result).status).toBe("done");
    expect(runs).toHaveLength(2);
    expect(() => stream[Symbol.asyncIterator]()).toThrow(/iterated once/);
  });

  it("a listener that throws fails the run with its error", async () => {
    const run = runAgent("t", scriptedModel([final("ok")]), new ToolRegistry(), {
      onEvent: () => {
        throw new Error("ui broke");
      },
    });
    await expect(run).rejects.toThrow("ui broke");
  });

  it("streams tool calls' arguments and reasoning, as the model writes them", async () => {
    const events: AgentStreamEvent[] = [];
    const registry = new ToolRegistry();
    registry.register("t", "T.", { type: "object", properties: { q: { type: "string" } } }, () => "ok");
    const reply = {
      content: "",
      toolCalls: [toolCall("a", "t", { q: "two words" })],
      reasoning: [{ type: "reasoning" as const, text: "I should look.", signature: "sig" }],
    };
    await runAgent("t", scriptedModel([reply, final("ok")]), registry, { onEvent: (e) => events.push(e) });
    const reasoning = events.flatMap((e) => (e.type === "reasoning-delta" ? [e.text] : [])).join("");
    expect(reasoning).toBe("I should look.");
    const args = events.flatMap((e) => (e.type === "tool-call-delta" ? [e.argsText] : [])).join("");
    expect(args).toBe('{"q":"two words"}');
    expect(events.find((e) => e.type === "tool-call-delta")).toMatchObject({ step: 1, index: 0, id: "a", name: "t" });
  });
});
