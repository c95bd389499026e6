import { agentActor, asks, final, type Model, scriptedModel, ToolRegistry, toolCall } from "@agentloop/core";
import { describe, expect, it, vi } from "vitest";
import { createActor, setup, toPromise } from "xstate";
import { hangGuard } from "../../../../hang-guard.js";
import { researchWorkflow } from "../../examples/research-then-summarize.js";

/** The example is written against the published package, so its tools come from there too. */
function makeWeatherRegistry() {
  const runs: [string, string][] = [];
  const registry = new ToolRegistry();
  registry.register(
    "get_weather",
    "Current temperature of one city in Celsius.",
    { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
    ({ city }: { city: string }) => {
      runs.push(["get_weather", city]);
      return { city, celsius: city === "Pune" ? 30 : 35 };
    },
  );
  return { registry, runs };
}

async function runWorkflow(researcher: Model, summarizer: Model) {
  const { registry, runs } = makeWeatherRegistry();
  const actor = createActor(researchWorkflow, {
    input: { question: "How hot is Pune?", researcher, summarizer, tools: registry },
  });
  const output = toPromise(actor);
  actor.start();
  return { output: await output, runs };
}

describe("agentMachine as a child actor of a larger workflow", () => {
  it("runs a research agent, then a summary agent on its answer", async () => {
    const researcher = scriptedModel([asks(toolCall("c1", "get_weather", { city: "Pune" })), final("Pune: 30 C.")]);
    const summarizer = scriptedModel([final("It is warm in Pune.")]);
    const { output, runs } = await runWorkflow(researcher, summarizer);
    expect(output).toEqual({ outcome: "summarized", summary: "It is warm in Pune.", problem: null });
    expect(runs).toEqual([["get_weather", "Pune"]]);
    expect(summarizer.seen[0]?.[1]).toEqual({ role: "user", content: "Summarize in one sentence: Pune: 30 C." });
  });

  it("handles the research agent's step limit with its own transition", async () => {
    let n = 0;
    const researcher: Model = () => asks(toolCall(`c${++n}`, "get_weather", { city: n % 2 ? "Pune" : "Delhi" }));
    const { output } = await runWorkflow(researcher, scriptedModel([]));
    expect(output).toEqual({
      outcome: "gaveUp",
      summary: null,
      problem: "the research needed more steps than allowed",
    });
    expect(n).toBe(4);
  });

  it("handles the research agent's token budget with its own transition", async () => {
    const huge = "x".repeat(9000);
    const researcher = scriptedModel([{ content: huge, toolCalls: [toolCall("c1", "get_weather", { city: "Pune" })] }]);
    const { output } = await runWorkflow(researcher, scriptedModel([]));
    expect(output).toEqual({ outcome: "gaveUp", summary: null, problem: "the research ran out of tokens" });
  });

  it("turns a model failure of the child into the parent's onError", async () => {
    const researcher: Model = () => {
      throw new Error("API down");
    };
    const { output } = await runWorkflow(researcher, scriptedModel([]));
    expect(output.outcome).toBe("failed");
    expect(output.problem).toMatch(/model call 1 failed: Error: API down/);
  });

  it("lets the summary agent's exit decide too", async () => {
    const researcher = scriptedModel([final("Pune: 30 C.")]);
    const summarizer: Model = () => asks(toolCall("s1", "get_weather", { city: "Pune" }));
    const { output } = await runWorkflow(researcher, summarizer);
    expect(output).toEqual({ outcome: "gaveUp", summary: null, problem: "the summary ended with step_limit" });
  });

  it("cancels the run when the parent leaves the invoking state: the model's signal aborts", async () => {
    let seen: AbortSignal | undefined;
    const model: Model = (_messages, _tools, { signal }) => {
      seen = signal;
      return new Promise((_, reject) => signal.addEventListener("abort", () => reject(signal.reason)));
    };
    const parent = setup({ actors: { agent: agentActor } }).createMachine({
      initial: "working",
      states: {
        working: {
          invoke: { src: "agent", input: { task: "t", model, registry: new ToolRegistry() } },
          on: { stop: "stopped" },
        },
        stopped: { type: "final" },
      },
    });
    const actor = createActor(parent).start();
    await vi.waitFor(() => expect(seen?.aborted).toBe(false), { timeout: hangGuard(45_000) });
    actor.send({ type: "stop" });
    await vi.waitFor(() => expect(seen?.aborted).toBe(true), { timeout: hangGuard(45_000) });
    expect(actor.getSnapshot().status).toBe("done");
  });
});
