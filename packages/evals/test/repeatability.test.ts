import { type EventStore, final, MemoryEventStore, replayRun, runAgent, scriptedModel } from "@agentloop/core";
import { WEATHER_TASK, weatherScript } from "@agentloop/core/testing";
import { describe, expect, it } from "vitest";
import {
  type EvalCase,
  type EvalReport,
  evaluate,
  exactAnswer,
  judge,
  readVerdict,
  recordedTools,
  type Scorer,
  toolCalls,
} from "../src/index.js";
import { fixedRunIds, scriptedRun } from "./helpers.js";

const cases: EvalCase[] = [
  { id: "weather", task: WEATHER_TASK, expected: "It is 86 F in Pune." },
  { id: "weather-terse", task: `${WEATHER_TASK} One word.`, expected: "86F" },
];

/** The report without its wall-clock times: everything the runs' logs decide. */
function withoutTiming(report: EvalReport): Omit<EvalReport, "timing"> {
  const { timing: _, ...rest } = report;
  return rest;
}

describe("an eval of a fixed agent with a scripted model and recorded tools", () => {
  it("gives the same report twice, and the same again from a replay of every case's log", async () => {
    const recordStore = new MemoryEventStore();
    await scriptedRun({})(
      { id: "weather", task: WEATHER_TASK },
      {
        store: recordStore,
        runId: "recorded",
        signal: new AbortController().signal,
      },
    );
    const recording = await recordStore.read("recorded");
    const run = (c: EvalCase, { store, runId, signal }: { store: EventStore; runId: string; signal: AbortSignal }) =>
      runAgent(c.task, scriptedModel(weatherScript()), recordedTools(recording), { store, runId, signal });
    const judgeScript = () => (_: unknown) => final('{"score": 0.9, "reason": "correct, with its unit"}');
    const scorers = (): Scorer[] => [
      exactAnswer(),
      toolCalls(["get_weather", "c_to_f"]),
      judge(judgeScript(), "Is the temperature right?", { threshold: 0.5 }),
    ];
    const options = { name: "repeatable", cases, run, concurrency: 2, runId: fixedRunIds("case") };
    const firstStore = new MemoryEventStore();
    const first = await evaluate({ ...options, scorers: scorers(), store: firstStore });
    const second = await evaluate({ ...options, scorers: scorers(), store: new MemoryEventStore() });
    expect(withoutTiming(second)).toEqual(withoutTiming(first));
    expect(JSON.stringify(withoutTiming(second))).toBe(JSON.stringify(withoutTiming(first)));
    expect(first.cases.map((c) => c.passed)).toEqual([true, false]);

    // The third pass calls no model and runs no tool: each case's result is its log replayed, and
    // the judge's score is the verdict its own logged run replays to.
    const replayStore = new MemoryEventStore();
    const replayedJudge: Scorer = {
      name: "judge",
      threshold: 0.5,
      async score({ runId, onRun }) {
        const judgeRunId = `${runId}.judge`;
        const events = await firstStore.read(judgeRunId);
        for (const event of events) await replayStore.append(judgeRunId, event);
        onRun?.(judgeRunId);
        return readVerdict(replayRun(events).result?.answer ?? null).score;
      },
    };
    const replayed = await evaluate({
      ...options,
      store: replayStore,
      scorers: [exactAnswer(), toolCalls(["get_weather", "c_to_f"]), replayedJudge],
      run: async (_c, { store, runId }) => {
        const events = await firstStore.read(runId);
        for (const event of events) await store.append(runId, event);
        const { result } = replayRun(events, { runId });
        if (result === null) throw new Error(`run ${runId} did not finish`);
        return { ...result, runId };
      },
    });
    expect(JSON.stringify(withoutTiming(replayed))).toBe(JSON.stringify(withoutTiming(first)));
  });

  it("with the first report as baseline, the second has nothing regressed, improved or changed", async () => {
    const options = {
      name: "baseline",
      cases: [{ id: "capital", task: "Capital of France?", expected: "Paris" }],
      run: scriptedRun({ capital: [final("Paris")] }),
      scorers: [exactAnswer()],
    };
    const baseline = await evaluate(options);
    const again = await evaluate({ ...options, baseline });
    expect([again.regressions, again.improvements, again.changed]).toEqual([[], [], []]);
  });
});
