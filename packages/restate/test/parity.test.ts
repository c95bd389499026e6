import {
  asks,
  final,
  type Guardrails,
  MemoryEventStore,
  type Message,
  type Model,
  type ModelReply,
  replayRun,
  runAgent,
  ToolRegistry,
  toolCall,
} from "@agentloop/core";
import { parseEventLog } from "@agentloop/core/store";
import { hangGuard } from "@agentloop/store-testkit/servers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AgentWorkflowOptions, agentWorkflow } from "../src/index.js";
import { stepModel } from "./support/in-process.js";
import { type InProcessHarness, openInProcess, untimed } from "./support/in-process-harness.js";

// Each feature of runAgent runs on the real server and is compared with runAgent given the same
// options and a fresh copy of the same models: the same result, the same log, a log that replays.

const WEATHER = { type: "object", properties: { city: { type: "string" }, celsius: { type: "number" } } } as const;
const CITY = '{"city":"Pune","celsius":30}';

function weatherTools(): ToolRegistry {
  const registry = new ToolRegistry();
  registry.register("get_weather", "Celsius in a city.", { type: "object" }, () => ({ city: "Pune", celsius: 30 }));
  return registry;
}

/** Tools whose results are long, so that a few steps fill the context and it is compacted. */
function pageTools(): ToolRegistry {
  const registry = new ToolRegistry();
  registry.register(
    "fetch",
    "Fetches a page.",
    { type: "object", properties: { page: { type: "integer" } } },
    (args) => `page ${String(args.page)}: ${"x".repeat(2000)}`,
  );
  return registry;
}

const usage = { inputTokens: 1, outputTokens: 1 };
const PAGES: ModelReply[] = [1, 2, 3, 4, 5, 6, 7].map((page) => ({
  ...asks(toolCall(`p${page}`, "fetch", { page })),
  usage,
}));

/** A failure the provider says may pass, after `retryAfterMs` when given (then the wait is that, not jittered). */
function busy(retryAfterMs?: number): Error {
  return Object.assign(new Error("429 busy"), {
    retryable: true,
    ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
  });
}

/** Fails the first call of each task, then answers as `script` says. */
function failsFirst(script: readonly ModelReply[], retryAfterMs?: number): Model {
  const failed = new Set<string>();
  const answer = stepModel(script);
  return (messages, tools, options) => {
    const task = String(messages.find((message: Message) => message.role === "user")?.content);
    if (!failed.has(task)) {
      failed.add(task);
      throw busy(retryAfterMs);
    }
    return answer(messages, tools, options);
  };
}

/** Answers in the order of its calls (a compacted list hides the earlier steps from a model that counts them); one run per model. */
function inTurn(script: readonly ModelReply[]): Model {
  let calls = 0;
  return () => script[calls++] ?? final("The script is over.");
}

const down: Model = () => {
  throw busy(1);
};

const summarizer: Model = (messages) => ({ content: `summary of ${messages.length}`, toolCalls: [], usage });

const guardrails: Guardrails = {
  input: [
    {
      name: "no-ssn",
      check: (text) => (/\d{3}-\d{2}-\d{4}/.test(text) ? { tripped: true, reason: "an SSN" } : { tripped: false }),
    },
  ],
  output: [
    {
      name: "no-secret",
      check: (text) => (text.includes("secret") ? { tripped: true, reason: "a secret" } : { tripped: false }),
    },
  ],
};

/** Each workflow's options; `model` and the others are made afresh for runAgent. */
const FEATURES = {
  typed: () => ({ model: stepModel([final("about 30"), final(CITY)]), registry: weatherTools(), output: WEATHER }),
  guarded: () => ({ model: stepModel([final("Sunny.")]), registry: weatherTools(), guardrails }),
  retrying: () => ({
    model: failsFirst([asks(toolCall("w", "get_weather")), final("30 C.")], 3),
    registry: weatherTools(),
    retry: { attempts: 2 },
  }),
  jittered: () => ({
    model: failsFirst([final("30 C.")]),
    registry: weatherTools(),
    retry: { attempts: 1, initialDelayMs: 4, maxDelayMs: 4 },
  }),
  fallingBack: () => ({
    model: down,
    registry: weatherTools(),
    retry: { attempts: 1 },
    fallbackModels: [stepModel([final("From the fallback.")])],
  }),
  givingUp: () => ({ model: down, registry: weatherTools(), retry: { attempts: 1 } }),
  looping: () => ({
    model: stepModel(Array.from({ length: 6 }, () => asks(toolCall("", "get_weather")))),
    registry: weatherTools(),
  }),
  compacting: () => ({
    model: inTurn([...PAGES, final("Read them all.")]),
    registry: pageTools(),
    compaction: { triggerTokens: 1500, keepRecent: 2, summarizer },
    tokenBudget: Number.POSITIVE_INFINITY,
    maxSteps: 20,
  }),
  trimming: () => ({
    model: inTurn([...PAGES, final("Read them all.")]),
    registry: pageTools(),
    compaction: { triggerTokens: 1500, keepRecent: 2, strategy: "trim" as const },
    tokenBudget: Number.POSITIVE_INFINITY,
    maxSteps: 20,
  }),
} satisfies Record<string, () => Omit<AgentWorkflowOptions, "name" | "store">>;

type Feature = keyof typeof FEATURES;

/** A run's own limits, given with its task. */
type RunLimits = { readonly maxSteps?: number; readonly repeatLimit?: number; readonly onRepeatedCall?: "stop" };

const store = new MemoryEventStore();
const workflows = Object.entries(FEATURES).map(([name, make]) => agentWorkflow({ name, store, ...make() }));

describe("a Restate run runs everything runAgent runs", () => {
  let restate: InProcessHarness;

  beforeAll(async () => {
    restate = await openInProcess(workflows);
  }, hangGuard(60_000));

  afterAll(async () => {
    await restate?.close();
  });

  /** Runs `task` on the workflow and with runAgent; both logs (and the workflow's own) replay to the result. */
  async function both(feature: Feature, runId: string, task: string, limits: RunLimits = {}) {
    const run = restate.run(feature, runId);
    await run.workflowSubmit({ task, ...limits });
    const durable = await run.workflowAttach().catch((error: unknown) => error as Error);
    const local = new MemoryEventStore();
    const { model, registry, ...options } = FEATURES[feature]();
    const live = await runAgent(task, model, registry, { ...options, ...limits, store: local, runId }).catch(
      (error: unknown) => error as Error,
    );
    const mirrored = await store.read(runId);
    const logged = await local.read(runId);
    return { run, durable, live, mirrored, logged };
  }

  it("output: the typed answer, after the model corrects an invalid one", async () => {
    const { durable, live, mirrored, logged } = await both("typed", "typed-1", "How hot is Pune?");
    expect(durable).toMatchObject({ status: "done", output: { city: "Pune", celsius: 30 } });
    expect(durable).toEqual(live);
    expect(untimed(mirrored)).toEqual(untimed(logged));
    expect(mirrored.filter((event) => event.type === "output.checked")).toHaveLength(2);
    const { runId: _runId, ...result } = durable as object & { runId: string };
    expect(replayRun(mirrored).result).toEqual(result);
  });

  it("guardrails: an input guardrail trips before any model call; the output guardrail checks the answer", async () => {
    const tripped = await both("guarded", "guarded-1", "My SSN is 123-45-6789, what is the weather?");
    expect(tripped.durable).toMatchObject({ status: "guardrail_tripped", steps: 0 });
    expect(tripped.durable).toEqual(tripped.live);
    expect(untimed(tripped.mirrored)).toEqual(untimed(tripped.logged));
    expect(tripped.mirrored.some((event) => event.type === "model.replied")).toBe(false);

    const passed = await both("guarded", "guarded-2", "What is the weather?");
    expect(passed.durable).toMatchObject({ status: "done", answer: "Sunny." });
    expect(passed.durable).toEqual(passed.live);
    expect(untimed(passed.mirrored)).toEqual(untimed(passed.logged));
    const checks = passed.mirrored.filter((event) => event.type === "guardrail.checked");
    expect(checks.map((event) => event.type === "guardrail.checked" && event.name)).toEqual(["no-ssn", "no-secret"]);
  });

  it("retry: a failed call is logged, its wait is a durable sleep of the provider's retry-after, and the call is made again", async () => {
    const { run, durable, live, mirrored, logged } = await both("retrying", "retrying-1", "Weather in Pune?");
    expect(durable).toMatchObject({ status: "done", answer: "30 C." });
    expect(durable).toEqual(live);
    expect(untimed(mirrored)).toEqual(untimed(logged));
    expect(mirrored.map((event) => event.type).slice(1, 4)).toEqual(["model.failed", "retry.waited", "model.replied"]);
    expect(mirrored.find((event) => event.type === "retry.waited")).toMatchObject({ delayMs: 3 });
    expect(parseEventLog("retrying-1", await run.events())).toEqual(mirrored);
  });

  it("retry: the harness's own backoff is jittered with Restate's deterministic randomness", async () => {
    const { durable, live, mirrored } = await both("jittered", "jittered-1", "Weather?");
    expect(durable).toEqual(live);
    const waited = mirrored.find((event) => event.type === "retry.waited");
    // Equal jitter: between half of the 4 ms backoff and all of it.
    expect(waited).toMatchObject({ type: "retry.waited" });
    const delay = (waited as { delayMs: number }).delayMs;
    expect(delay).toBeGreaterThanOrEqual(2);
    expect(delay).toBeLessThanOrEqual(4);
    const { runId: _runId, ...result } = durable as object & { runId: string };
    expect(replayRun(mirrored).result).toEqual(result);
  });

  it("fallbackModels: once the run's model has used its retries, the fallback answers", async () => {
    const { durable, live, mirrored, logged } = await both("fallingBack", "fallback-1", "Weather?");
    expect(durable).toMatchObject({ status: "done", answer: "From the fallback." });
    expect(durable).toEqual(live);
    expect(untimed(mirrored)).toEqual(untimed(logged));
    expect(mirrored.find((event) => event.type === "model.replied")).toMatchObject({ model: 1 });
  });

  it("retry: past its attempts the run fails with the model's error, every attempt logged, as runAgent rejects", async () => {
    const { run, durable, live, mirrored, logged } = await both("givingUp", "giving-up-1", "Weather?");
    expect(live).toBeInstanceOf(Error);
    expect(durable).toBeInstanceOf(Error);
    expect((durable as Error).message).toContain((live as Error).message);
    expect(untimed(mirrored)).toEqual(untimed(logged));
    expect(mirrored.filter((event) => event.type === "model.failed")).toHaveLength(2);
    expect(await run.status()).toMatchObject({ phase: "failed", error: (live as Error).message });
  });

  it("limits: the step limit and the repeated-call guard end the run as they end runAgent's", async () => {
    const limited = await both("looping", "looping-1", "Weather?", { maxSteps: 2 });
    expect(limited.durable).toMatchObject({ status: "step_limit", steps: 2 });
    expect(limited.durable).toEqual(limited.live);
    expect(untimed(limited.mirrored)).toEqual(untimed(limited.logged));

    const repeated = await both("looping", "looping-2", "Weather?", { repeatLimit: 2, onRepeatedCall: "stop" });
    expect(repeated.durable).toMatchObject({ status: "repeated_call" });
    expect(repeated.durable).toEqual(repeated.live);
    expect(untimed(repeated.mirrored)).toEqual(untimed(repeated.logged));
  });

  it("compaction: the summarizer writes the summary, journaled once", async () => {
    const { durable, live, mirrored, logged } = await both("compacting", "compacting-1", "Read the pages.");
    expect(durable).toMatchObject({ status: "done", answer: "Read them all." });
    expect(durable).toEqual(live);
    expect(untimed(mirrored)).toEqual(untimed(logged));
    const compacted = mirrored.filter((event) => event.type === "context.compacted");
    expect(compacted.length).toBeGreaterThan(0);
    expect(compacted[0]).toMatchObject({ summary: expect.stringMatching(/^summary of \d+$/) });
    const { runId: _runId, ...result } = durable as object & { runId: string };
    expect(replayRun(mirrored).result).toEqual(result);
  });

  it("compaction: a workflow's compaction is applied to its runs (trimmed, no summary)", async () => {
    const { durable, live, mirrored, logged } = await both("trimming", "trimming-1", "Read the pages.");
    expect(durable).toEqual(live);
    expect(untimed(mirrored)).toEqual(untimed(logged));
    expect(mirrored[0]).toMatchObject({ settings: { compaction: { strategy: "trim", triggerTokens: 1500 } } });
    const compacted = mirrored.filter((event) => event.type === "context.compacted");
    expect(compacted.length).toBeGreaterThan(0);
    expect(compacted[0]).not.toHaveProperty("summary");
  });
});
