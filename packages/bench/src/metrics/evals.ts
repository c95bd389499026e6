import { type AgentResult, type EventStore, MemoryEventStore, runAgent, scriptedModel } from "@agentloop/core";
import { makeWeatherRegistry, WEATHER_TASK, weatherScript } from "@agentloop/core/testing";
import { type EvalCase, evaluate, exactAnswer, toolCalls } from "@agentloop/evals";

/** `count` cases of the weather agent (3 model calls, 2 tool calls each), all with the same expected answer. */
export function weatherCases(count: number): EvalCase[] {
  return Array.from({ length: count }, (_, index) => ({
    id: `case-${index}`,
    task: WEATHER_TASK,
    expected: "It is 86 F in Pune.",
  }));
}

function runCase(task: string, store: EventStore, runId: string, signal?: AbortSignal): Promise<AgentResult> {
  const { registry } = makeWeatherRegistry();
  return runAgent(task, scriptedModel(weatherScript()), registry, { store, runId, ...(signal ? { signal } : {}) });
}

/** Milliseconds to run `cases` by hand, one after another: each run logged, its log read back and its answer compared. */
export async function byHand(cases: readonly EvalCase[]): Promise<number> {
  const store = new MemoryEventStore();
  const started = performance.now();
  let passed = 0;
  for (const [index, c] of cases.entries()) {
    const result = await runCase(c.task, store, `hand-${index}`);
    const events = await store.read(`hand-${index}`);
    if (result.answer === c.expected && events.length > 0) passed += 1;
  }
  const ms = performance.now() - started;
  if (passed !== cases.length) throw new Error(`by hand: ${passed} of ${cases.length} cases passed`);
  return ms;
}

/** Milliseconds for `evaluate` to run and score the same cases, one at a time, with an answer and a trajectory scorer. */
export async function withEvaluate(cases: readonly EvalCase[], concurrency = 1): Promise<number> {
  const started = performance.now();
  const report = await evaluate({
    name: "bench",
    cases,
    concurrency,
    run: (c, { store, runId, signal }) => runCase(c.task, store, runId, signal),
    scorers: [exactAnswer(), toolCalls(["get_weather", "c_to_f"])],
  });
  const ms = performance.now() - started;
  if (report.passed !== cases.length) throw new Error(`evaluate: ${report.passed} of ${cases.length} cases passed`);
  return ms;
}

/** Wall time and memory of one evaluation of `count` cases at `concurrency`: peak RSS (whole process) and the most heap seen. */
export async function largeEvaluation(
  count: number,
  concurrency: number,
): Promise<{ ms: number; peakHeap: number; maxRss: number }> {
  let peakHeap = process.memoryUsage().heapUsed;
  const sample = setInterval(() => {
    peakHeap = Math.max(peakHeap, process.memoryUsage().heapUsed);
  }, 5);
  try {
    const ms = await withEvaluate(weatherCases(count), concurrency);
    peakHeap = Math.max(peakHeap, process.memoryUsage().heapUsed);
    // maxRSS is in kilobytes.
    return { ms, peakHeap, maxRss: process.resourceUsage().maxRSS * 1024 };
  } finally {
    clearInterval(sample);
  }
}
