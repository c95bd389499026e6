import { describe, expect, it } from "vitest";
import {
  contentText,
  forkRun,
  MemoryEventStore,
  type Message,
  ModelError,
  type ModelReply,
  resumeAgent,
  runAgent,
  scriptedModel,
} from "../../src/index.js";
import { bigResults, countingSummarizer, fetchingScript } from "./compaction-fixture.js";

const TASK = "Read the pages and report.";
const LIMITS = { tokenBudget: Number.POSITIVE_INFINITY, maxSteps: 20 };

describe("a summarizer that fails", () => {
  it("rejects the run with ModelError naming the model call the summary was for; the log resumes with a working one", async () => {
    const store = new MemoryEventStore();
    const script = fetchingScript(8);
    const model = scriptedModel(script);
    const broken = () => {
      throw new Error("503 overloaded");
    };
    const compaction = { triggerTokens: 1500, keepRecent: 2, summarizer: broken };
    const failure = await runAgent(TASK, model, bigResults(), { ...LIMITS, store, runId: "s", compaction }).catch(
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(ModelError);
    expect((failure as ModelError).message).toMatch(
      /^the summary before model call \d+ failed: Error: 503 overloaded$/,
    );
    const events = await store.read("s");
    expect(events.some((event) => event.type === "context.compacted")).toBe(false);
    const summarizer = countingSummarizer();
    const rest = scriptedModel(script.slice(model.seen.length));
    const result = await resumeAgent("s", rest, bigResults(), { store, summarizer });
    expect(result.status).toBe("done");
    expect(summarizer.prompts.length).toBeGreaterThan(0);
  });

  it("an empty summary is a failure too, never an empty message shown to the model", async () => {
    const empty = (): ModelReply => ({ content: "  ", toolCalls: [] });
    const run = runAgent(TASK, scriptedModel(fetchingScript(8)), bigResults(), {
      ...LIMITS,
      compaction: { triggerTokens: 1500, summarizer: empty },
    });
    await expect(run).rejects.toThrow(/the summarizer returned no summary/);
  });
});

describe("cancelling a compaction", () => {
  it("ends the run cancelled while the summary is being written, the summarizer's call aborted", async () => {
    const controller = new AbortController();
    let aborted = false;
    const waiting = (_: readonly Message[], __: unknown, options: { signal: AbortSignal }) =>
      new Promise<ModelReply>((_resolve, reject) => {
        options.signal.addEventListener("abort", () => {
          aborted = true;
          reject(new Error("aborted"));
        });
        controller.abort();
      });
    const result = await runAgent(TASK, scriptedModel(fetchingScript(8)), bigResults(), {
      ...LIMITS,
      signal: controller.signal,
      compaction: { triggerTokens: 1500, summarizer: waiting },
    });
    expect(result.status).toBe("cancelled");
    expect(aborted).toBe(true);
  });
});

describe("a fork of a compacted run", () => {
  it("rebuilds the view from the log: the fork's next call is shown the logged summary, and nobody writes it again", async () => {
    const store = new MemoryEventStore();
    const first = countingSummarizer();
    const script = fetchingScript(8);
    const compaction = { triggerTokens: 1500, keepRecent: 2, summarizer: first };
    await runAgent(TASK, scriptedModel(script), bigResults(), { ...LIMITS, store, runId: "o", compaction });
    const events = await store.read("o");
    const summary = events.find((event) => event.type === "context.compacted");
    if (summary?.type !== "context.compacted") throw new Error("no compaction logged");
    const fork = await forkRun(store, "o", { keep: summary.seq + 1, runId: "f" });
    const again = countingSummarizer();
    const model = scriptedModel(script.slice(summary.step - 1));
    const result = await resumeAgent(fork, model, bigResults(), { store, summarizer: again });
    expect(result.status).toBe("done");
    expect(model.seen[0]?.[2]?.content).toContain("summary 1");
    expect(again.prompts.every((prompt) => contentText(prompt[1]?.content ?? "").includes("The summary so far:"))).toBe(
      true,
    );
  });
});

describe("compaction options", () => {
  it("are checked before anything runs, each with a one-line error", async () => {
    const run = (compaction: unknown) =>
      runAgent(TASK, scriptedModel([]), bigResults(), { compaction: compaction as { triggerTokens: number } });
    await expect(run({ triggerTokens: -1 })).rejects.toThrow(
      "compaction.triggerTokens must be a finite number of tokens, 0 or more; got -1",
    );
    await expect(run({ triggerTokens: 10, strategy: "drop" })).rejects.toThrow(
      `compaction.strategy must be 'summarize' or 'trim'; got the string "drop"`,
    );
    await expect(run({ triggerTokens: 10, keepRecent: 1.5 })).rejects.toThrow(
      "compaction.keepRecent must be a whole number, 0 or more; got 1.5",
    );
    await expect(run({ triggerTokens: 10, summarizer: "gpt" })).rejects.toThrow(
      `compaction.summarizer must be a model (a function); got the string "gpt"`,
    );
    await expect(run(5)).rejects.toThrow("compaction must be an object with triggerTokens; got 5");
  });
});
