import {
  type AgentResult,
  final,
  MemoryEventStore,
  ModelError,
  runAgent,
  scriptedModel,
  ToolRegistry,
} from "@agentloop/core";
import { WEATHER_TASK } from "@agentloop/core/testing";
import { describe, expect, it } from "vitest";
import { type EvalCase, type EvalReport, evaluate, exactAnswer, type Scorer, toolCalls } from "../src/index.js";
import { fixedRunIds, scriptedRun } from "./helpers.js";

const cases: EvalCase[] = [
  { id: "weather", task: WEATHER_TASK, expected: "It is 86 F in Pune." },
  { id: "capital", task: "Capital of France?", expected: "Paris" },
];
const answers = { capital: [final("Paris")] };

describe("evaluate", () => {
  it("runs each case as a logged run and reports its scores, pass, run id and tokens", async () => {
    const store = new MemoryEventStore();
    const report = await evaluate({ name: "basic", cases, run: scriptedRun(answers), scorers: [exactAnswer()], store });
    expect(report.passed).toBe(2);
    expect(report.failed).toBe(0);
    expect(report.cases.map((c) => [c.id, c.scores, c.passed, c.status])).toEqual([
      ["weather", { exactAnswer: 1 }, true, "done"],
      ["capital", { exactAnswer: 1 }, true, "done"],
    ]);
    for (const c of report.cases) {
      const events = await store.read(c.runId);
      expect(events[0]?.type).toBe("run.started");
      expect(events.at(-1)?.type).toBe("run.finished");
    }
    expect(report.tokens).toBe(report.cases.reduce((sum, c) => sum + c.tokens, 0));
    expect(report.tokens).toBeGreaterThan(0);
    expect(Object.keys(report.timing.cases).sort()).toEqual(["capital", "weather"]);
    expect(report.regressions).toEqual([]);
    expect(report.notRun).toBe(0);
    expect(report.interrupted).toBeUndefined();
  });

  it("a failing score fails the case, a score at the threshold passes it", async () => {
    const half: Scorer = { name: "half", threshold: 0.5, score: () => 0.5 };
    const report = await evaluate({
      name: "thresholds",
      cases: [{ id: "capital", task: "Capital of France?", expected: "Lyon" }],
      run: scriptedRun(answers),
      scorers: [half, exactAnswer()],
    });
    expect(report.cases[0]).toMatchObject({ scores: { half: 0.5, exactAnswer: 0 }, passed: false });
    expect(report.cases[0]?.error).toBeUndefined();
  });

  it("a case whose run rejects is an error of that case; the others go on", async () => {
    const report = await evaluate({
      name: "rejects",
      cases: [{ id: "missing", task: "?" }, ...cases],
      run: scriptedRun(answers),
      scorers: [exactAnswer()],
    });
    expect(report.cases[0]).toMatchObject({ id: "missing", passed: false, error: "run: no script for case 'missing'" });
    expect(report.cases[0]?.scores).toEqual({});
    expect(report.passed).toBe(2);
    expect(report.failed).toBe(1);
  });

  it("a case whose run resolves to no result (null, or not a run's result) is an error of that case; the others go on", async () => {
    const report = await evaluate({
      name: "no result",
      cases: [{ id: "nothing", task: "?" }, { id: "odd", task: "?" }, ...cases],
      run: async (c, context) => {
        if (c.id === "nothing") return null as unknown as AgentResult;
        if (c.id === "odd") return { answer: "hi" } as unknown as AgentResult;
        return scriptedRun(answers)(c, context);
      },
      scorers: [exactAnswer()],
    });
    expect(report.cases.map((c) => [c.id, c.passed, c.error])).toEqual([
      ["nothing", false, "run: resolved to null, not the result of a run (return what runAgent returns)"],
      [
        "odd",
        false,
        "run: resolved to an object with no status, not the result of a run (return what runAgent returns)",
      ],
      ["weather", true, undefined],
      ["capital", true, undefined],
    ]);
    expect(report.failed).toBe(2);
  });

  it("a model that fails is an error of its case, after the run's retries", async () => {
    let calls = 0;
    const down = () => {
      calls += 1;
      throw new ModelError("503 service unavailable", { messages: [], step: 1, retryable: true });
    };
    const report = await evaluate({
      name: "down",
      cases: [cases[1] as EvalCase],
      run: (c, { store, runId }) =>
        runAgent(c.task, down, new ToolRegistry(), { store, runId, retry: { attempts: 2, initialDelayMs: 1 } }),
      scorers: [exactAnswer()],
    });
    expect(report.cases[0]?.error).toMatch(/^run: .*503 service unavailable/);
    expect(calls).toBe(3);
  });

  it("a scorer that throws, or gives no score in 0..1, is an error score named in the case; other scorers and cases go on", async () => {
    const throws: Scorer = {
      name: "boom",
      score: () => {
        throw new Error("scorer broke");
      },
    };
    const tooHigh: Scorer = { name: "tooHigh", score: () => 2 };
    const notANumber: Scorer = { name: "nan", score: () => Number.NaN };
    const report = await evaluate({
      name: "scorer errors",
      cases,
      run: scriptedRun(answers),
      scorers: [throws, tooHigh, notANumber, exactAnswer()],
    });
    for (const c of report.cases) {
      expect(c.passed).toBe(false);
      expect(c.scores).toEqual({ boom: 0, tooHigh: 0, nan: 0, exactAnswer: 1 });
      expect(c.error).toBe(
        "scorer 'boom': scorer broke; scorer 'tooHigh': gave 2, not a score from 0 to 1; scorer 'nan': gave NaN, not a score from 0 to 1",
      );
    }
  });

  it("refuses duplicate case ids, duplicate scorer names and a bad concurrency before running anything", async () => {
    let ran = 0;
    const run = async () => {
      ran += 1;
      return runAgent("x", scriptedModel([final("x")]), new ToolRegistry());
    };
    const twice = [cases[1] as EvalCase, cases[1] as EvalCase];
    await expect(evaluate({ name: "x", cases: twice, run, scorers: [] })).rejects.toThrow(TypeError);
    await expect(evaluate({ name: "x", cases, run, scorers: [exactAnswer(), exactAnswer()] })).rejects.toThrow(
      "two scorers are named 'exactAnswer'",
    );
    await expect(evaluate({ name: "x", cases, run, scorers: [], concurrency: 0 })).rejects.toThrow(RangeError);
    expect(ran).toBe(0);
  });

  it("runs at most `concurrency` cases at once", async () => {
    let running = 0;
    let most = 0;
    const many = Array.from({ length: 20 }, (_, index) => ({ id: `c${index}`, task: "Say hi", expected: "hi" }));
    const report = await evaluate({
      name: "bounded",
      cases: many,
      concurrency: 3,
      run: async (c, { store, runId }) => {
        running += 1;
        most = Math.max(most, running);
        try {
          return await runAgent(c.task, async () => final("hi"), new ToolRegistry(), { store, runId });
        } finally {
          running -= 1;
        }
      },
      scorers: [exactAnswer()],
    });
    expect(report.passed).toBe(20);
    expect(most).toBe(3);
  });

  it("at a concurrency above ten, the caller's signal gets one listener: Node warns of no leak", async () => {
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(warning.name);
    process.on("warning", onWarning);
    try {
      const many = Array.from({ length: 32 }, (_, index) => ({ id: `c${index}`, task: "Say hi", expected: "hi" }));
      const report = await evaluate({
        name: "wide",
        cases: many,
        concurrency: 16,
        signal: new AbortController().signal,
        run: (c, { store, runId, signal }) =>
          runAgent(c.task, async () => final("hi"), new ToolRegistry(), { store, runId, signal }),
        scorers: [exactAnswer()],
      });
      await new Promise((resolve) => setImmediate(resolve));
      expect(report.passed).toBe(32);
      expect(warnings).not.toContain("MaxListenersExceededWarning");
    } finally {
      process.off("warning", onWarning);
    }
  });

  it("stops when its signal aborts: no case starts after, and the partial report says so", async () => {
    const controller = new AbortController();
    const many = Array.from({ length: 10 }, (_, index) => ({ id: `c${index}`, task: "Say hi", expected: "hi" }));
    const report = await evaluate({
      name: "stopped",
      cases: many,
      concurrency: 2,
      signal: controller.signal,
      run: (c, { store, runId, signal }) =>
        runAgent(c.task, async () => final("hi"), new ToolRegistry(), { store, runId, signal }),
      scorers: [exactAnswer()],
      onCase: (_report, done) => {
        if (done === 3) controller.abort();
      },
    });
    expect(report.interrupted).toBe(true);
    expect(report.cases.length).toBeGreaterThanOrEqual(3);
    expect(report.cases.length).toBeLessThan(10);
    expect(report.notRun).toBe(10 - report.cases.length);
  });

  it("against a baseline: lists the cases that regressed, improved and changed", async () => {
    const three: EvalCase[] = [
      { id: "a", task: "a", expected: "yes" },
      { id: "b", task: "b", expected: "yes" },
      { id: "c", task: "c", expected: "yes" },
      { id: "d", task: "d", expected: "yes" },
    ];
    const options = { name: "compare", cases: three, scorers: [exactAnswer()], runId: fixedRunIds("x") };
    const baseline: EvalReport = await evaluate({
      ...options,
      run: scriptedRun({ a: [final("yes")], b: [final("no")], c: [final("yes")], d: [final("yes")] }),
    });
    const report = await evaluate({
      ...options,
      baseline,
      run: scriptedRun({ a: [final("no")], b: [final("yes")], c: [final("yes")], d: [final("YES ")] }),
      store: new MemoryEventStore(),
    });
    expect(report.regressions).toEqual(["a", "d"]);
    expect(report.improvements).toEqual(["b"]);
    expect(report.changed).toEqual(["a", "b", "d"]);
  });

  it("a tool-call scorer reads the trajectory from the log", async () => {
    const report = await evaluate({
      name: "trajectory",
      cases: [cases[0] as EvalCase],
      run: scriptedRun(answers),
      scorers: [toolCalls(["get_weather", "c_to_f"]), toolCalls(["c_to_f", "get_weather"], { name: "reversed" })],
    });
    expect(report.cases[0]?.scores).toEqual({ toolCalls: 1, reversed: 0 });
  });
});
