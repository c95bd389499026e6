import { contentText, final, MemoryEventStore, type Message, ModelError, replayRun } from "@agentloop/core";
import { describe, expect, it } from "vitest";
import { type EvalCase, evaluate, judge, readVerdict } from "../src/index.js";
import { scriptedRun } from "./helpers.js";

const cases: EvalCase[] = [{ id: "capital", task: "Capital of France?", expected: "Paris" }];
const run = scriptedRun({ capital: [final("Paris, on the Seine.")] });
const rubric = "Full marks when the answer names the expected city.";

/** A judge model that answers `text`, and counts its calls. */
function judgeModel(text: string) {
  const seen: string[] = [];
  const model = (messages: readonly Message[]) => {
    seen.push(messages.map((m) => contentText(m.content)).join("\n---\n"));
    return final(text);
  };
  return Object.assign(model, { seen });
}

describe("judge", () => {
  it("scores by its verdict, shown the task, the expected and the answer, as a logged run the report names", async () => {
    const store = new MemoryEventStore();
    const model = judgeModel('{"score": 0.75, "reason": "names Paris"}');
    const report = await evaluate({
      name: "judged",
      cases,
      run,
      store,
      scorers: [judge(model, rubric, { threshold: 0.7 })],
    });
    const [c] = report.cases;
    expect(c).toMatchObject({ scores: { judge: 0.75 }, passed: true });
    expect(model.seen[0]).toContain(rubric);
    expect(model.seen[0]).toContain("Capital of France?");
    expect(model.seen[0]).toContain("Paris, on the Seine.");
    expect(model.seen[0]).toContain("Expected:\nParis\n");
    const judgeRun = c?.scorerRuns?.judge;
    expect(judgeRun).toBe(`${c?.runId}.judge`);
    const events = await store.read(judgeRun as string);
    expect(events.at(-1)?.type).toBe("run.finished");
  });

  it("a verdict replayed from the judge's log gives the same score, calling no model", async () => {
    const store = new MemoryEventStore();
    const report = await evaluate({
      name: "judged",
      cases,
      run,
      store,
      scorers: [judge(judgeModel('```json\n{"score": 0.4, "reason": "vague"}\n```'), rubric)],
    });
    const judgeRun = report.cases[0]?.scorerRuns?.judge as string;
    const { result } = replayRun(await store.read(judgeRun));
    expect(readVerdict(result?.answer ?? null).score).toBe(report.cases[0]?.scores.judge);
    expect(report.cases[0]?.scores.judge).toBe(0.4);
  });

  it.each([
    ["not JSON", "I think it deserves a 9/10", /not JSON/],
    ["no score", '{"grade": "A"}', /no numeric "score"/],
    ["a score as text", '{"score": "1"}', /no numeric "score"/],
    ["out of range", '{"score": 9}', /not from 0 to 1/],
    ["an empty answer", "", /not JSON/],
  ])("a judge that answers garbage (%s) is an error score of the case, not a crash or a pass", async (_, text, why) => {
    const report = await evaluate({
      name: "garbage",
      cases,
      run,
      scorers: [judge(judgeModel(text), rubric, { threshold: 0 })],
    });
    const [c] = report.cases;
    expect(c?.passed).toBe(false);
    expect(c?.scores.judge).toBe(0);
    expect(c?.error).toMatch(/^scorer 'judge': /);
    expect(c?.error).toMatch(why);
  });

  it("a judge model that is down is an error score after its retries, and its fallback answers when given", async () => {
    let calls = 0;
    const down = () => {
      calls += 1;
      throw new ModelError("overloaded", { messages: [], step: 1, retryable: true });
    };
    const retried = await evaluate({
      name: "down",
      cases,
      run,
      scorers: [judge(down, rubric, { run: { retry: { attempts: 1, initialDelayMs: 1 } } })],
    });
    expect(retried.cases[0]?.error).toMatch(/^scorer 'judge': .*overloaded/);
    expect(calls).toBe(2);
    const fallback = judgeModel('{"score": 1, "reason": "ok"}');
    const rescued = await evaluate({
      name: "fallback",
      cases,
      run,
      scorers: [judge(down, rubric, { run: { fallbackModels: [fallback] } })],
    });
    expect(rescued.cases[0]).toMatchObject({ scores: { judge: 1 }, passed: true });
  });

  it("a judge that hangs stops when the evaluation's signal aborts: the case is an error score and the report says interrupted", async () => {
    const controller = new AbortController();
    let judging = false;
    const hangs = (_messages: readonly Message[], _tools: unknown, options: { signal: AbortSignal }) => {
      judging = true;
      queueMicrotask(() => controller.abort());
      return new Promise<never>((_resolve, reject) =>
        options.signal.addEventListener("abort", () => reject(options.signal.reason), { once: true }),
      );
    };
    const report = await evaluate({
      name: "hung",
      cases,
      run,
      scorers: [judge(hangs, rubric)],
      signal: controller.signal,
    });
    expect(judging).toBe(true);
    expect(report.interrupted).toBe(true);
    expect(report.cases[0]).toMatchObject({ id: "capital", passed: false, scores: { judge: 0 } });
    expect(report.cases[0]?.error).toMatch(/^scorer 'judge': the judge's run ended '(cancelled|aborted)'/);
  });

  it("judges whose names differ only in the characters a run id cannot hold log separate runs", async () => {
    const store = new MemoryEventStore();
    const report = await evaluate({
      name: "two judges",
      cases,
      run,
      store,
      scorers: [
        judge(judgeModel('{"score": 1, "reason": "a"}'), rubric, { name: "judge a" }),
        judge(judgeModel('{"score": 0.5, "reason": "b"}'), rubric, { name: "judge_a", threshold: 0.5 }),
      ],
    });
    const [c] = report.cases;
    expect(c?.error).toBeUndefined();
    expect(c?.scores).toEqual({ "judge a": 1, judge_a: 0.5 });
    const runs = c?.scorerRuns ?? {};
    expect(runs.judge_a).toBe(`${c?.runId}.judge_a`);
    expect(runs["judge a"]).not.toBe(runs.judge_a);
    for (const runId of Object.values(runs)) expect((await store.read(runId)).at(-1)?.type).toBe("run.finished");
  });
});
