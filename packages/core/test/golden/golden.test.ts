import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  asks,
  final,
  type Message,
  type Model,
  replayRun,
  resumeAgent,
  scriptedModel,
  toolCall,
} from "../../src/index.js";
import { messagesOf } from "../../src/machine.js";
import { EVENT_LOG_SCHEMA_VERSION } from "../../src/store.js";
import { JsonlEventStore } from "../../src/stores/jsonl-store.js";
import { makeWeatherRegistry } from "../../src/testing.js";

// Golden logs: written once by the code of schema version 1 and never regenerated. Every
// expectation below is a literal taken from those runs, not recomputed by the code under test, so
// a change that can no longer read (or reads differently) a version-1 log fails here. When the
// schema moves on, add v2-* logs next to these and keep these tests.

const GOLDEN = join(import.meta.dirname, "..", "fixtures", "golden");
const STARTED_AT = "2025-01-15T09:30:00.000Z";
const TASK = "How hot is Pune in Fahrenheit?";

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** A JsonlEventStore over a temporary copy of the golden logs: the fixtures themselves are never written. */
function goldenStore(): JsonlEventStore {
  const dir = mkdtempSync(join(tmpdir(), "agentloop-golden-"));
  dirs.push(dir);
  cpSync(GOLDEN, dir, { recursive: true });
  return new JsonlEventStore(dir);
}

const noModel: Model = () => {
  throw new Error("the model was called");
};

const toolContents = (messages: readonly Message[]) =>
  Object.fromEntries(messages.flatMap((m) => (m.role === "tool" ? [[m.toolCallId, m.content]] : [])));

interface Expected {
  readonly run: string;
  readonly events: number;
  readonly status: string;
  readonly answer: string | null;
  readonly steps: number;
  readonly tokens: number;
  readonly messages: number;
  readonly system: string;
  readonly maxSteps: number;
  readonly tokenBudget: number;
}

const FINISHED: readonly Expected[] = [
  {
    run: "v1-happy",
    events: 9,
    status: "done",
    answer: "It is 86 F in Pune.",
    steps: 3,
    tokens: 621,
    messages: 7,
    system: "Use the tools to answer the user.",
    maxSteps: 8,
    tokenBudget: 4000,
  },
  {
    run: "v1-step-limit",
    events: 8,
    status: "step_limit",
    answer: null,
    steps: 2,
    tokens: 364,
    messages: 6,
    system: "You are a careful weather assistant.",
    maxSteps: 2,
    tokenBudget: 4000,
  },
  {
    run: "v1-token-budget",
    events: 8,
    status: "token_budget",
    answer: null,
    steps: 2,
    tokens: 376,
    messages: 6,
    system: "Use the tools to answer the user.",
    maxSteps: 8,
    tokenBudget: 604,
  },
  {
    run: "v1-errors",
    events: 24,
    status: "done",
    answer: "I could not confirm the alert. Pune is 30 C.",
    steps: 4,
    tokens: 2398,
    messages: 15,
    system: "Use the tools to answer the user.",
    maxSteps: 8,
    tokenBudget: Number.POSITIVE_INFINITY,
  },
  {
    run: "v1-fork",
    events: 9,
    status: "done",
    answer: "It is 86 F in Pune.",
    steps: 3,
    tokens: 621,
    messages: 7,
    system: "Use the tools to answer the user.",
    maxSteps: 8,
    tokenBudget: Number.POSITIVE_INFINITY,
  },
];

describe("golden logs of schema version 1", () => {
  it("are all here, and each one has its expectations here (golden-v3.test.ts has the current schema's)", () => {
    const files = readdirSync(GOLDEN)
      .filter((file) => file.startsWith("v1-"))
      .sort();
    expect(files).toEqual([
      "v1-errors.jsonl",
      "v1-fork.jsonl",
      "v1-happy.jsonl",
      "v1-interrupted.jsonl",
      "v1-safeguards-approval.jsonl",
      "v1-safeguards-cancelled.jsonl",
      "v1-safeguards-repeated.jsonl",
      "v1-step-limit.jsonl",
      "v1-token-budget.jsonl",
    ]);
    expect(readdirSync(GOLDEN).some((file) => file.startsWith(`v${EVENT_LOG_SCHEMA_VERSION}-`))).toBe(true);
  });

  for (const expected of FINISHED) {
    it(`${expected.run}: replays to its recorded result, and resume gives it back calling nothing`, async () => {
      const store = goldenStore();
      const events = await store.read(expected.run);
      expect(events).toHaveLength(expected.events);
      const [started] = events;
      expect(started?.type === "run.started" && started.settings).toMatchObject({
        task: TASK,
        system: expected.system,
        maxSteps: expected.maxSteps,
        tokenBudget: expected.tokenBudget,
      });

      const { result, context } = replayRun(events, { runId: expected.run });
      expect(result).not.toBeNull();
      expect({ status: result?.status, answer: result?.answer, steps: result?.steps, tokens: result?.tokens }).toEqual({
        status: expected.status,
        answer: expected.answer,
        steps: expected.steps,
        tokens: expected.tokens,
      });
      expect(result?.messages).toHaveLength(expected.messages);
      expect(messagesOf(context.transcript)).toEqual(result?.messages);
      expect(result?.messages.slice(0, 2)).toEqual([
        { role: "system", content: expected.system },
        { role: "user", content: TASK },
      ]);
      // The logged outcome says the same.
      expect(events.at(-1)).toMatchObject({
        type: "run.finished",
        outcome: { status: expected.status, answer: expected.answer, steps: expected.steps, tokens: expected.tokens },
      });

      const summary = (await store.list()).find((run) => run.runId === expected.run);
      expect(summary).toEqual({
        runId: expected.run,
        task: TASK,
        startedAt: STARTED_AT,
        events: expected.events,
        outcome: { status: expected.status, answer: expected.answer, steps: expected.steps, tokens: expected.tokens },
      });

      if (expected.run !== "v1-errors") {
        const { registry, runs } = makeWeatherRegistry();
        const resumed = await resumeAgent(expected.run, noModel, registry, { store });
        expect(resumed).toEqual({ ...result, runId: expected.run });
        expect(runs).toEqual([]);
        expect(await store.read(expected.run)).toEqual(events);
      }
    });
  }

  it("v1-happy: the exact trace", async () => {
    const { result } = replayRun(await goldenStore().read("v1-happy"));
    expect(result?.messages).toEqual([
      { role: "system", content: "Use the tools to answer the user." },
      { role: "user", content: TASK },
      {
        role: "assistant",
        content: "I will look up Pune first.",
        toolCalls: [{ id: "c1", name: "get_weather", args: { city: "Pune" } }],
      },
      { role: "tool", toolCallId: "c1", name: "get_weather", content: '{"city":"Pune","celsius":30}' },
      { role: "assistant", content: "", toolCalls: [{ id: "c2", name: "c_to_f", args: { celsius: 30 } }] },
      { role: "tool", toolCallId: "c2", name: "c_to_f", content: "86" },
      { role: "assistant", content: "It is 86 F in Pune.", toolCalls: [] },
    ]);
  });

  it("v1-errors: every kind of ERROR observation, usage and an unlimited budget read back", async () => {
    const events = await goldenStore().read("v1-errors");
    const { result } = replayRun(events);
    expect(toolContents(result?.messages ?? [])).toEqual({
      e1: "ERROR: unknown tool 'get_wether'. Available tools: ['c_to_f', 'get_weather', 'new_ticket', 'send_alert']",
      e2: `ERROR: missing required argument 'city'. get_weather expects {"city":{"type":"string"}}`,
      e3: `ERROR: argument 'celsius' must be of type number. c_to_f expects {"celsius":{"type":"number"}}`,
      e4: `ERROR: unexpected argument 'units'. get_weather expects {"city":{"type":"string"}}`,
      e5: `ERROR: the arguments of 'c_to_f' are not a valid JSON object (Expected ',' or '}' after property value in JSON at position 14). Send one JSON object. c_to_f expects {"celsius":{"type":"number"}}`,
      e6: `ERROR: the arguments of 'c_to_f' are not a valid JSON object (it is JSON, but not an object). Send one JSON object. c_to_f expects {"celsius":{"type":"number"}}`,
      e7: "ERROR: get_weather failed: Error: unknown city 'Atlantis'",
      e8: "ERROR: new_ticket returned a value that cannot be sent as JSON: TypeError: Do not know how to serialize a BigInt",
      e9: "ERROR: the result of send_alert was lost: the run was interrupted while it ran, so it may or may not have taken effect. Check its effect before you call it again.",
    });
    const replies = events.flatMap((event) => (event.type === "model.replied" ? [event.reply] : []));
    expect(replies.map((reply) => reply.usage)).toEqual([
      { inputTokens: 210, outputTokens: 40 },
      { inputTokens: 520, outputTokens: 60 },
      { inputTokens: 700, outputTokens: 20 },
      { inputTokens: 760, outputTokens: 15 },
    ]);
    expect(replies[1]?.toolCalls[0]).toEqual({ id: "e5", name: "c_to_f", args: {}, rawArgs: '{"celsius": 30' });
  });

  it("v1-fork: forkedFrom and the null budget read back", async () => {
    const [started] = await goldenStore().read("v1-fork");
    expect(started?.type === "run.started" && started.forkedFrom).toEqual({ runId: "v1-token-budget", seq: 7 });
    expect(started?.type === "run.started" && started.settings.tokenBudget).toBe(Number.POSITIVE_INFINITY);
    const line = JSON.parse(readFileSync(join(GOLDEN, "v1-fork.jsonl"), "utf8").split("\n")[0] ?? "") as {
      settings: { tokenBudget: unknown };
    };
    expect(line.settings.tokenBudget).toBeNull();
  });

  it("v1-interrupted: replays to the live state at the interruption, with no result", async () => {
    const store = goldenStore();
    const events = await store.read("v1-interrupted");
    expect(events.map((event) => event.type)).toEqual([
      "run.started",
      "model.replied",
      "tool.started",
      "tool.finished",
      "model.replied",
      "tool.started",
    ]);
    const { result, context, snapshot } = replayRun(events, { runId: "v1-interrupted" });
    expect(result).toBeNull();
    expect(snapshot.value).toEqual({ executingTools: "runningTools" });
    expect(context.steps).toBe(2);
    expect(context.tokens).toBe(376);
    expect(messagesOf(context.transcript)).toHaveLength(5);
    expect(context.batch?.calls).toEqual([{ id: "c2", name: "c_to_f", args: { celsius: 30 } }]);
    expect(context.batch?.stateOf(0)).toBe("running");
    const summary = (await store.list()).find((run) => run.runId === "v1-interrupted");
    expect(summary).toEqual({ runId: "v1-interrupted", task: TASK, startedAt: STARTED_AT, events: 6, outcome: null });
  });

  it("v1-interrupted: resuming with the weather tools finishes, running only what was not logged", async () => {
    const store = goldenStore();
    const { registry, runs } = makeWeatherRegistry();
    // c_to_f is not idempotent: its lost result comes back as an ERROR, and the model asks again.
    const model = scriptedModel([asks(toolCall("c3", "c_to_f", { celsius: 30 })), final("It is 86 F in Pune.")]);
    const result = await resumeAgent("v1-interrupted", model, registry, { store });
    expect(result.status).toBe("done");
    expect(result.answer).toBe("It is 86 F in Pune.");
    expect(result.steps).toBe(4);
    expect(result.messages).toHaveLength(9);
    expect(model.seen).toHaveLength(2);
    expect(model.seen[0]).toHaveLength(6);
    expect(runs).toEqual([["c_to_f", 30]]);
    expect(toolContents(result.messages)).toEqual({
      c1: '{"city":"Pune","celsius":30}',
      c2: "ERROR: the result of c_to_f was lost: the run was interrupted while it ran, so it may or may not have taken effect. Check its effect before you call it again.",
      c3: "86",
    });
    // The log now holds the whole run, the old events unchanged.
    const events = await store.read("v1-interrupted");
    expect(events.slice(0, 6)).toEqual(await goldenStore().read("v1-interrupted"));
    const { runId, ...replayed } = result;
    expect(runId).toBe("v1-interrupted");
    expect(replayRun(events).result).toEqual(replayed);
  });
});

// Logs written with the safeguards: a paused run resumed with decisions, a run cancelled while a
// tool ran, a repeated call under the stop policy with provider usage and a reply reserve.
const SAFEGUARDS = [
  {
    run: "v1-safeguards-approval",
    types:
      "run.started model.replied approval.decided tool.started tool.finished approval.decided model.replied run.finished",
    outcome: { status: "done", answer: "Posted the alert for Pune; Delhi was refused.", steps: 2, tokens: 529 },
    tools: {
      a1: '{"posted":"Pune"}',
      a2: "ERROR: the user denied this call to post_alert (no alerts for Delhi today), so it was not run. Do not ask for it again; answer without it or ask the user what to do.",
    },
  },
  {
    run: "v1-safeguards-cancelled",
    types: "run.started model.replied tool.started run.cancelled run.finished",
    outcome: { status: "cancelled", answer: null, steps: 1, tokens: 235 },
    tools: {
      s1: "ERROR: slow_lookup was not run to completion: the run was cancelled.",
      s2: "ERROR: get_weather was not run to completion: the run was cancelled.",
    },
  },
  {
    run: "v1-safeguards-repeated",
    types: "run.started model.replied tool.started tool.finished model.replied run.finished",
    outcome: { status: "repeated_call", answer: null, steps: 2, tokens: 385 },
    tools: {
      r1: '{"city":"Pune","celsius":30}',
      r2: "ERROR: get_weather was not run to completion: the run stopped because a call was repeated.",
    },
  },
] as const;

describe("golden logs of schema version 1, with the safeguards", () => {
  for (const expected of SAFEGUARDS) {
    it(`${expected.run}: replays to its recorded outcome and tool messages`, async () => {
      const events = await goldenStore().read(expected.run);
      expect(events.map((event) => event.type).join(" ")).toBe(expected.types);
      const { result } = replayRun(events, { runId: expected.run });
      expect(result).toMatchObject(expected.outcome);
      expect(toolContents(result?.messages ?? [])).toEqual(expected.tools);
    });
  }
});
