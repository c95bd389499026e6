import { describe, expect, it } from "vitest";
import {
  agentTool,
  asks,
  type CliModel,
  continueAgent,
  final,
  MemoryEventStore,
  runAgent,
  scriptedModel,
  ToolRegistry,
  toolCall,
} from "../core-api.js";
import type { Progress } from "../output/progress-line.js";
import { LiveView } from "./live-view.js";
import { RunTracer, traceRun } from "./run-trace.js";

function lookTools(): ToolRegistry {
  const registry = new ToolRegistry();
  registry.register("look", "Looks.", { type: "object" }, () => "seen");
  return registry;
}

describe("a live view folds the events the run logs, as stored", () => {
  it("from run.started on, with the run's own limits: nothing rebuilt from the stream, no settings resolved", async () => {
    const store = new MemoryEventStore();
    const reports: Progress[] = [];
    const tracer = new RunTracer("r");
    const view = new LiveView(tracer, {
      progress: (progress) => reports.push(progress),
      text: () => {},
      attempt: () => {},
    });
    view.start();
    const model = scriptedModel([asks(toolCall("a", "look")), final("done")]);
    const hooks = { onEvent: view.onEvent, onLogged: view.onLogged };
    await runAgent("t", model, lookTools(), { store, runId: "r", maxSteps: 5, tokenBudget: 9000, ...hooks });
    const logged = await store.read("r");
    // Each entry is the stored event itself (seq, at and hash included), run.started first.
    expect(tracer.trace().entries.map((entry) => entry.event)).toEqual(logged);
    expect(tracer.trace()).toEqual(traceRun(logged, "r"));
    expect(reports[0]).toMatchObject({ state: "callingModel", steps: 0, maxSteps: 5, tokenBudget: 9000, turn: 1 });
    expect(reports.at(-1)).toMatchObject({ state: "done", steps: 2, maxSteps: 5, tokenBudget: 9000 });
  });

  it("a conversation's next turn goes on from the log folded so far, its steps and tokens counted afresh", async () => {
    const store = new MemoryEventStore();
    const model = scriptedModel([final("hi"), final("again")]);
    await runAgent("t", model, lookTools(), { store, runId: "c", maxSteps: 3 });
    const tracer = new RunTracer("c");
    for (const event of await store.read("c")) tracer.add(event);
    const reports: Progress[] = [];
    const view = new LiveView(tracer, {
      progress: (progress) => reports.push(progress),
      text: () => {},
      attempt: () => {},
    });
    await continueAgent("c", "and?", model, lookTools(), { store, onLogged: view.onLogged });
    expect(tracer.trace()).toEqual(traceRun(await store.read("c"), "c"));
    expect(reports.at(-1)).toMatchObject({ state: "done", steps: 1, maxSteps: 3, turn: 2 });
  });

  it("tells the sink of each failed model attempt and of the wait, while the progress shows the retryWait state", async () => {
    const reports: Progress[] = [];
    const attempts: string[] = [];
    const tracer = new RunTracer("f");
    const view = new LiveView(tracer, {
      progress: (progress) => reports.push(progress),
      text: () => {},
      attempt: (event) => attempts.push(event.type === "model.failed" ? event.error : `wait ${event.delayMs}`),
    });
    let calls = 0;
    const flaky: CliModel = () => {
      calls += 1;
      if (calls === 1) throw Object.assign(new Error("529 overloaded_error"), { retryable: true, retryAfterMs: 2 });
      return final("done");
    };
    await runAgent("t", flaky, lookTools(), {
      store: new MemoryEventStore(),
      runId: "f",
      retry: { attempts: 1 },
      onEvent: view.onEvent,
      onLogged: view.onLogged,
    });
    expect(attempts).toEqual(["model call 1 failed: Error: 529 overloaded_error", "wait 2"]);
    expect(reports.some((progress) => progress.state === "retryWait")).toBe(true);
    expect(reports.at(-1)).toMatchObject({ state: "done", steps: 1 });
  });

  it("follows its own run only: a child run's text and steps (an agent tool's) are not shown as this run's", async () => {
    // Regression test; before the change: the child's streamed answer was printed into the
    // parent's line, and its steps counted as the parent's progress.
    const texts: string[] = [];
    const reports: Progress[] = [];
    const tracer = new RunTracer("p");
    const view = new LiveView(tracer, {
      progress: (p) => reports.push(p),
      text: (t) => texts.push(t),
      attempt: () => {},
    });
    const child = scriptedModel([final("CHILD ANSWER")]);
    const registry = new ToolRegistry([
      agentTool({ name: "research", description: "Researches.", model: child, registry: new ToolRegistry() }),
    ]);
    const parent = scriptedModel([asks(toolCall("r1", "research", { task: "look" })), final("parent answer")]);
    const result = await runAgent("t", parent, registry, {
      store: new MemoryEventStore(),
      runId: "p",
      onEvent: view.onEvent,
      onLogged: view.onLogged,
    });
    expect(result.answer).toBe("parent answer");
    expect(texts.join("")).toBe("parent answer");
    expect(reports.every((progress) => progress.steps <= 2)).toBe(true);
    expect(reports.at(-1)).toMatchObject({ state: "done", steps: 2 });
  });
});
