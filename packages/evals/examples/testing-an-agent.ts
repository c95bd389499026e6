import assert from "node:assert/strict";
import {
  type AgentResult,
  contentText,
  final,
  MemoryEventStore,
  type Message,
  type Model,
  runAgent,
  ToolRegistry,
  toolCall,
} from "@agentloop/core";
import { type EvalCase, evaluate, exactAnswer, type RunContext, toolCalls } from "@agentloop/evals";

// The agent under test: a system prompt, a model and two tools. Here the model is a small stand-in
// that follows the prompt as a real one would: told to use the tools, it looks the temperature up
// and converts it; told to answer from memory, it guesses. Put your real model here.
const registry = new ToolRegistry();
registry.register(
  "get_weather",
  "Current temperature of one city in Celsius.",
  { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
  ({ city }: { city: string }) => ({ city, celsius: city === "Pune" ? 30 : 20 }),
);
registry.register(
  "c_to_f",
  "Convert Celsius to Fahrenheit.",
  { type: "object", properties: { celsius: { type: "number" } }, required: ["celsius"] },
  ({ celsius }: { celsius: number }) => (celsius * 9) / 5 + 32,
);

const model: Model = (messages: readonly Message[]) => {
  const system = contentText(messages[0]?.content ?? "");
  const city = /hot is (\w+)/.exec(contentText(messages[1]?.content ?? ""))?.[1] ?? "";
  const results = messages.filter((m) => m.role === "tool").map((m) => contentText(m.content));
  if (!system.includes("Use the tools")) return final(`About 80 F in ${city}.`);
  if (results.length === 0) return { content: "", toolCalls: [toolCall("w", "get_weather", { city })] };
  if (results.length === 1) {
    const { celsius } = JSON.parse(results[0] ?? "{}") as { celsius: number };
    return { content: "", toolCalls: [toolCall("f", "c_to_f", { celsius })] };
  }
  return final(`It is ${results[1]} F in ${city}.`);
};

// The cases: a task and what a good answer is. `expected` is whatever your scorers compare with.
const cases: EvalCase[] = [
  { id: "pune", task: "How hot is Pune in Fahrenheit?", expected: "It is 86 F in Pune." },
  { id: "oslo", task: "How hot is Oslo in Fahrenheit?", expected: "It is 68 F in Oslo." },
];

// How one case runs: pass the store, run id and signal on, so the run is logged under the id the
// report names (and can be shown, replayed or forked), and Ctrl-C cancels it.
const runWith =
  (system: string) =>
  (c: EvalCase, { store, runId, signal }: RunContext): Promise<AgentResult> =>
    runAgent(c.task, model, registry, { system, store, runId, signal });

const scorers = [exactAnswer(), toolCalls(["get_weather", "c_to_f"])];
const store = new MemoryEventStore();

// The baseline: the prompt as it is today. Keep its report (as JSON) beside the eval.
const baseline = await evaluate({
  name: "weather",
  cases,
  scorers,
  store,
  run: runWith("You answer weather questions. Use the tools; never guess."),
});
assert.equal(baseline.passed, 2);

// A change to try: a shorter prompt that drops the instruction to use the tools.
const candidate = await evaluate({
  name: "weather",
  cases,
  scorers,
  store,
  baseline,
  run: runWith("You answer weather questions briefly."),
});

// The baseline catches it: both cases regressed, and the log shows why (no tool was called).
assert.deepEqual(candidate.regressions, ["pune", "oslo"]);
assert.deepEqual(candidate.cases[0]?.scores, { exactAnswer: 0, toolCalls: 0 });
const log = await store.read(candidate.cases[0]?.runId ?? "");
assert.equal(log.filter((event) => event.type === "tool.started").length, 0);
