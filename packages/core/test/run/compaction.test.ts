import { describe, expect, it } from "vitest";
import {
  type AgentStreamEvent,
  MemoryEventStore,
  type Message,
  ModelError,
  replayRun,
  resumeAgent,
  runAgent,
  scriptedModel,
  shownAtStep,
} from "../../src/index.js";
import { bigResults, countingSummarizer, fetchingScript, orphanProblem } from "./compaction-fixture.js";

const TASK = "Read the pages and report.";

/** Whether `messages` starts with the system message and the task, as every view must. */
function headOf(messages: readonly Message[]): readonly Message[] {
  return messages.slice(0, 2);
}

describe("compaction with trim", () => {
  it("shows the model the system message, the task and the recent messages only, never an orphaned tool message, and keeps every message in the trace", async () => {
    const model = scriptedModel(fetchingScript(8));
    const result = await runAgent(TASK, model, bigResults(), {
      tokenBudget: Number.POSITIVE_INFINITY,
      maxSteps: 20,
      compaction: { triggerTokens: 1500, strategy: "trim", keepRecent: 2 },
    });
    expect(result.status).toBe("done");
    // Two messages, then eight replies with nine tool messages, then the answer.
    expect(result.messages).toHaveLength(2 + 8 + 9 + 1);
    for (const seen of model.seen) {
      expect(headOf(seen)).toEqual(headOf(result.messages));
      expect(orphanProblem(seen)).toBeNull();
    }
    const longest = Math.max(...model.seen.map((seen) => JSON.stringify(seen).length));
    expect(longest).toBeLessThan(JSON.stringify(result.messages).length / 2);
    // The last call shows the reply with two calls and both of its results, though keepRecent is 2.
    expect(
      model.seen
        .at(-1)
        ?.slice(2)
        .map((m) => m.role),
    ).toEqual(["assistant", "tool", "tool"]);
  });

  it("changes nothing without the option: the model sees the whole list each time", async () => {
    const model = scriptedModel(fetchingScript(3));
    const result = await runAgent(TASK, model, bigResults(), { tokenBudget: Number.POSITIVE_INFINITY });
    expect(model.seen.at(-1)).toEqual(result.messages.slice(0, -1));
  });
});

describe("compaction with summarize", () => {
  it("replaces the hidden messages by one user message with the summary, and a later summary covers the earlier one", async () => {
    const model = scriptedModel(fetchingScript(8));
    const summarizer = countingSummarizer();
    const events: AgentStreamEvent[] = [];
    const result = await runAgent(TASK, model, bigResults(), {
      tokenBudget: Number.POSITIVE_INFINITY,
      maxSteps: 20,
      compaction: { triggerTokens: 1500, keepRecent: 2, summarizer },
      onEvent: (event) => events.push(event),
    });
    expect(result.status).toBe("done");
    expect(summarizer.prompts.length).toBeGreaterThanOrEqual(2);
    const second = summarizer.prompts[1]?.[1]?.content ?? "";
    expect(second).toContain("The summary so far:\nsummary 1");
    const last = model.seen.at(-1) as Message[];
    expect(last[2]).toEqual({ role: "user", content: expect.stringContaining(`summary ${summarizer.prompts.length}`) });
    for (const seen of model.seen) expect(orphanProblem(seen)).toBeNull();
    // The caller is told where each compaction is and what stands for the hidden messages.
    const told = events.flatMap((e) => (e.type === "logged" && e.event.type === "context.compacted" ? [e.event] : []));
    expect(told).toHaveLength(summarizer.prompts.length);
    expect(told[0]).toMatchObject({ type: "context.compacted", summary: "summary 1" });
  });

  it("counts the summarizer's tokens in the run's tokens (the provider's usage)", async () => {
    const summarizer = countingSummarizer({ inputTokens: 50, outputTokens: 5 });
    const result = await runAgent(TASK, scriptedModel(fetchingScript(8)), bigResults(), {
      tokenBudget: Number.POSITIVE_INFINITY,
      maxSteps: 20,
      compaction: { triggerTokens: 1500, keepRecent: 2, summarizer },
    });
    // Nine replies of 2 tokens each, and each summary's 55.
    expect(result.tokens).toBe(9 * 2 + 55 * summarizer.prompts.length);
    expect(result.steps).toBe(9);
  });

  it("ends token_budget without calling the summarizer when its call would pass the budget", async () => {
    const summarizer = countingSummarizer();
    const result = await runAgent(TASK, scriptedModel(fetchingScript(8)), bigResults(), {
      tokenBudget: 1500,
      maxSteps: 20,
      compaction: { triggerTokens: 1200, keepRecent: 0, summarizer },
    });
    expect(result.status).toBe("token_budget");
    expect(summarizer.prompts).toHaveLength(0);
  });
});

describe("compaction in the log", () => {
  async function loggedRun(summarizer = countingSummarizer()) {
    const store = new MemoryEventStore();
    const model = scriptedModel(fetchingScript(8));
    const options = { tokenBudget: Number.POSITIVE_INFINITY, maxSteps: 20, store };
    const compaction = { triggerTokens: 1500, keepRecent: 2, summarizer };
    const result = await runAgent(TASK, model, bigResults(), { ...options, compaction, runId: "r" });
    return { store, model, result, events: await store.read("r"), summarizer };
  }

  it("logs each summary before the next model call; replay rebuilds the result and shownAtStep what the model saw at every step", async () => {
    const { model, result, events } = await loggedRun();
    const compacted = events.filter((event) => event.type === "context.compacted");
    expect(compacted.length).toBeGreaterThan(0);
    for (const event of compacted) {
      const next = events.find((later) => later.seq > event.seq && later.type !== "tool.started");
      expect(next?.type).toBe("model.replied");
    }
    const { runId: _, ...replayed } = result;
    expect(replayRun(events).result).toEqual(replayed);
    for (const [index, seen] of model.seen.entries()) expect(shownAtStep(events, index + 1)).toEqual(seen);
    expect(shownAtStep(events, model.seen.length + 1)).toBeNull();
  });

  it("resumes after a crash right after the summary event without asking the summarizer again", async () => {
    const store = new MemoryEventStore();
    const summarizer = countingSummarizer();
    const script = fetchingScript(8);
    let calls = 0;
    // The model fails on the first call after the first compaction: the log ends with the summary.
    const failing = scriptedModel(script);
    const flaky = (...args: Parameters<typeof failing>) => {
      if (summarizer.prompts.length > 0) throw new Error("connection reset");
      calls++;
      return failing(...args);
    };
    const options = { tokenBudget: Number.POSITIVE_INFINITY, maxSteps: 20, store, runId: "crash" };
    const compaction = { triggerTokens: 1500, keepRecent: 2, summarizer };
    await expect(runAgent(TASK, flaky, bigResults(), { ...options, compaction })).rejects.toBeInstanceOf(ModelError);
    expect((await store.read("crash")).at(-1)?.type).toBe("context.compacted");
    const again = countingSummarizer();
    const rest = scriptedModel(script.slice(calls));
    const result = await resumeAgent("crash", rest, bigResults(), { store, summarizer: again });
    expect(result.status).toBe("done");
    // The first call after the crash is shown the logged summary; nobody wrote it again.
    expect(rest.seen[0]?.[2]?.content).toContain("summary 1");
    // Later compactions build on the logged summary: each one asked for is logged once.
    const logged = (await store.read("crash")).filter((event) => event.type === "context.compacted");
    expect(logged).toHaveLength(1 + again.prompts.length);
    expect(again.prompts[0]?.[1]?.content).toContain("The summary so far:\nsummary 1");
  });
});
