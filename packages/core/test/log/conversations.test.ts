import { describe, expect, it } from "vitest";
import {
  asks,
  continueAgent,
  EventLogError,
  final,
  forkRun,
  MemoryEventStore,
  replayRun,
  resumeAgent,
  runAgent,
  scriptedModel,
  toolCall,
} from "../../src/index.js";
import { weatherScript as happyScript, makeWeatherRegistry, WEATHER_TASK as TASK } from "../../src/testing.js";
import { movedTo, traceProblem } from "../run/trace.js";

const roles = (messages: readonly { role: string }[]) => messages.map((m) => m.role);

describe("a conversation goes on with the user's next message", () => {
  it("the message is logged, the machine goes back to budgetCheck with the whole list, and the answer comes", async () => {
    const { registry, runs } = makeWeatherRegistry();
    const store = new MemoryEventStore();
    const first = await runAgent(TASK, scriptedModel(happyScript()), registry, { store, runId: "chat" });
    const model = scriptedModel([asks(toolCall("d1", "get_weather", { city: "Delhi" })), final("Delhi is 35 C.")]);
    const second = await continueAgent("chat", "And Delhi?", model, registry, { store });
    expect([second.status, second.answer, second.runId]).toEqual(["done", "Delhi is 35 C.", "chat"]);
    // The model saw the whole conversation: the first turn, then the new message.
    expect(model.seen[0]?.slice(0, first.messages.length)).toEqual(first.messages);
    expect(model.seen[0]?.at(-1)).toEqual({ role: "user", content: "And Delhi?" });
    expect(roles(second.messages).slice(first.messages.length)).toEqual(["user", "assistant", "tool", "assistant"]);
    expect(traceProblem(second.messages.filter((_, i) => i !== first.messages.length))).toBeNull();
    // Steps and tokens count over the whole run.
    expect(second.steps).toBe(first.steps + 2);
    expect(second.tokens).toBeGreaterThan(first.tokens);
    expect(runs.at(-1)).toEqual(["get_weather", "Delhi"]);
    const log = await store.read("chat");
    expect(log.map((e) => e.type).filter((t) => t === "run.finished" || t === "user.messaged")).toEqual([
      "run.finished",
      "user.messaged",
      "run.finished",
    ]);
    // Replay goes through both turns to the last result; a finished conversation resumes as it was.
    const { runId: _runId, ...result } = second;
    expect(replayRun(log).result).toEqual(result);
    expect(await resumeAgent("chat", scriptedModel([]), registry, { store })).toEqual(second);
  });

  it("counts its limits per turn: each message gets maxSteps model calls and tokenBudget tokens", async () => {
    const { registry } = makeWeatherRegistry();
    const store = new MemoryEventStore();
    const ask = (n: number) => asks(toolCall(`c${n}`, "get_weather", { city: "Pune" }));
    const first = await runAgent(TASK, scriptedModel([ask(1), ask(2)]), registry, { store, runId: "lim", maxSteps: 2 });
    expect([first.status, first.steps]).toEqual(["step_limit", 2]);
    const second = await continueAgent("lim", "Go on.", scriptedModel([ask(3), final("Done.")]), registry, { store });
    expect([second.status, second.steps]).toEqual(["done", 4]);
  });

  it("a turn's budget is its own: the spending of earlier turns does not count, the whole prompt does", async () => {
    const { registry } = makeWeatherRegistry();
    const store = new MemoryEventStore();
    const first = await runAgent(TASK, scriptedModel(happyScript()), registry, { store, runId: "b" });
    // A budget the first turn fit into spends nothing of it in the second: the prompt alone must fit.
    const tokenBudget = first.tokens;
    await forkRun(store, "b", { runId: "b2", tokenBudget, keep: (await store.read("b")).length });
    const again = await continueAgent("b2", "Thanks!", scriptedModel([final("You are welcome.")]), registry, { store });
    expect(again.status).toBe("done");
    expect(again.tokens - first.tokens).toBeLessThanOrEqual(tokenBudget);
  });

  it("refuses a run that is not finished, and changes nothing", async () => {
    const { registry } = makeWeatherRegistry();
    const store = new MemoryEventStore();
    const full = await runAgent(TASK, scriptedModel(happyScript()), registry, { store, runId: "full" });
    expect(full.status).toBe("done");
    const log = await store.read("full");
    const cut = new MemoryEventStore();
    for (const event of movedTo("cut", log.slice(0, 3))) await cut.append("cut", event);
    const error = await continueAgent("cut", "Hi", scriptedModel([]), registry, { store: cut }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(EventLogError);
    expect((error as Error).message).toMatch(/'cut' is not finished: resume it/);
    expect(await cut.read("cut")).toHaveLength(3);
  });

  it("resume and fork work across turns: a cut inside the second turn goes on from there", async () => {
    const { registry } = makeWeatherRegistry();
    const store = new MemoryEventStore();
    await runAgent(TASK, scriptedModel(happyScript()), registry, { store, runId: "t" });
    const script = [asks(toolCall("d1", "get_weather", { city: "Delhi" })), final("Delhi is 35 C.")];
    const whole = await continueAgent("t", "And Delhi?", scriptedModel(script), registry, { store });
    const log = await store.read("t");
    const at = log.findIndex((e) => e.type === "user.messaged") + 2; // the message and the reply
    const forkId = await forkRun(store, "t", { keep: at, runId: "t-fork" });
    const resumed = await resumeAgent(forkId, scriptedModel(script.slice(1)), registry, { store });
    expect(resumed.messages).toEqual(whole.messages);
    expect(resumed.answer).toBe("Delhi is 35 C.");
  });
});

describe("a run that starts from an existing conversation", () => {
  it("takes the history between the system message and the task, logs it, and replays it", async () => {
    const { registry } = makeWeatherRegistry();
    const store = new MemoryEventStore();
    const history = [
      { role: "user" as const, content: "Hi, I am in Pune." },
      { role: "assistant" as const, content: "", toolCalls: [toolCall("h1", "get_weather", { city: "Pune" })] },
      { role: "tool" as const, toolCallId: "h1", name: "get_weather", content: '{"city":"Pune","celsius":30}' },
      { role: "assistant" as const, content: "It is 30 C there.", toolCalls: [] },
    ];
    const model = scriptedModel([final("Still 30 C.")]);
    const result = await runAgent("And now?", model, registry, { history, store, runId: "h" });
    expect(model.seen[0]).toEqual([
      { role: "system", content: "Use the tools to answer the user." },
      ...history,
      { role: "user", content: "And now?" },
    ]);
    expect(result.steps).toBe(1);
    const log = await store.read("h");
    expect(log[0]).toMatchObject({ type: "run.started", settings: { history } });
    expect(replayRun(log).result?.messages).toEqual(result.messages);
  });

  it("a call id of the history is not reused by a new reply", async () => {
    const { registry } = makeWeatherRegistry();
    const history = [
      { role: "assistant" as const, content: "", toolCalls: [toolCall("c1", "get_weather", { city: "Pune" })] },
      { role: "tool" as const, toolCallId: "c1", name: "get_weather", content: "{}" },
    ];
    const result = await runAgent(
      "Delhi?",
      scriptedModel([asks(toolCall("c1", "get_weather", { city: "Delhi" })), final("ok")]),
      registry,
      {
        history,
      },
    );
    const ids = result.messages.flatMap((m) => (m.role === "assistant" ? m.toolCalls.map((c) => c.id) : []));
    expect(new Set(ids).size).toBe(ids.length);
  });

  it.each([
    ["a system message", [{ role: "system", content: "x" }], /history\[0\] is a system message/],
    [
      "a call with no tool message",
      [{ role: "assistant", content: "", toolCalls: [toolCall("a", "t")] }],
      /ends before call 'a'/,
    ],
    [
      "a tool message for another call",
      [
        { role: "assistant", content: "", toolCalls: [toolCall("a", "t")] },
        { role: "tool", toolCallId: "b", name: "t", content: "" },
      ],
      /must answer call 'a'/,
    ],
    [
      "an id used twice",
      [{ role: "assistant", content: "", toolCalls: [toolCall("a", "t"), toolCall("a", "t")] }],
      /'a' a second time/,
    ],
    ["not an array", "hello", /history must be an array/],
  ])("refuses %s with a TypeError before anything runs", async (_label, history, words) => {
    const model = scriptedModel([final("x")]);
    await expect(runAgent("t", model, makeWeatherRegistry().registry, { history: history as never })).rejects.toThrow(
      words,
    );
    expect(model.seen).toEqual([]);
  });
});
