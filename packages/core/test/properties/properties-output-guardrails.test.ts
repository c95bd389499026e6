import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  type AgentResult,
  contentText,
  forkRun,
  type Guardrail,
  MemoryEventStore,
  type ModelReply,
  replayRun,
  resumeAgent,
  runAgent,
} from "../../src/index.js";
import { asks, final, makeWeatherRegistry, scriptedModel, toolCall } from "../../src/testing.js";

// Random runs through runAgent with a typed answer and guardrails: the model answers valid or
// invalid JSON, with lookups in between; each guardrail passes, trips, throws (even `null`) or
// hangs past its timeout, finishing after a random number of turns of the event loop. Whatever
// the order the checks finish in, the run keeps its bounds, ends as the plan says (the first
// failure in order of declaration wins), and its log replays and resumes to the same result
// without calling a validator or a guardrail again.

type Reply = "valid" | "notJson" | "wrongShape" | "call";
type Behaviour = "pass" | "trip" | "throw" | "throwNull" | "hang";

interface GuardPlan {
  readonly behaviour: Behaviour;
  /** Turns of the event loop before it answers: sets the order the stage's checks finish in. */
  readonly ticks: number;
}

interface Plan {
  readonly maxSteps: number;
  readonly outputRetries: number;
  readonly replies: readonly Reply[];
  readonly input: readonly GuardPlan[];
  readonly output: readonly GuardPlan[];
}

const guardArb = fc.record({
  behaviour: fc.constantFrom<Behaviour>("pass", "pass", "pass", "trip", "throw", "throwNull", "hang"),
  ticks: fc.nat(6),
});

const planArb: fc.Arbitrary<Plan> = fc.record({
  maxSteps: fc.integer({ min: 1, max: 6 }),
  outputRetries: fc.nat(3),
  replies: fc.array(fc.constantFrom<Reply>("valid", "notJson", "wrongShape", "call", "call"), { maxLength: 8 }),
  input: fc.array(guardArb, { maxLength: 3 }),
  output: fc.array(guardArb, { maxLength: 3 }),
});

function replyOf(reply: Reply, step: number): ModelReply {
  if (reply === "call") return asks(toolCall(`w${step}`, "get_weather", { city: "Pune" }));
  if (reply === "notJson") return final("It is 30 degrees.");
  return final(reply === "valid" ? `{"celsius":${step}}` : `{"celsius":"hot"}`);
}

/** A guardrail as planned; `calls` counts every time any check is called, `names` says which. */
function guardrailOf(
  stage: string,
  index: number,
  plan: GuardPlan,
  calls: { count: number; names?: string[] },
): Guardrail {
  const name = `${stage}${index}`;
  const check = async () => {
    calls.count++;
    calls.names?.push(name);
    for (let tick = 0; tick < plan.ticks; tick++) await new Promise((resolve) => setImmediate(resolve));
    if (plan.behaviour === "hang") return new Promise<never>(() => {});
    if (plan.behaviour === "throw") throw new Error("down");
    if (plan.behaviour === "throwNull") throw null;
    return plan.behaviour === "trip"
      ? { tripped: true as const, reason: `${name} trips` }
      : { tripped: false as const };
  };
  // Only the one that hangs is timed out: the others must not lose a race with a busy machine.
  return { name, check, timeoutMs: plan.behaviour === "hang" ? 5 : 10_000 };
}

interface Expected {
  readonly status: AgentResult["status"];
  readonly steps: number;
  readonly tripped?: { readonly name: string; readonly stage: string; readonly reason: string };
}

function reasonOf(name: string, plan: GuardPlan): string {
  if (plan.behaviour === "hang") return `${name} timed out after 5 ms`;
  if (plan.behaviour === "throw") return `${name} failed: Error: down`;
  if (plan.behaviour === "throwNull") return `${name} failed: threw a non-Error value: null`;
  return `${name} trips`;
}

/** The first guardrail of a stage that does not pass, in order of declaration. */
function firstTrip(stage: "input" | "output", plans: readonly GuardPlan[]): Expected["tripped"] {
  const index = plans.findIndex((plan) => plan.behaviour !== "pass");
  if (index < 0) return undefined;
  const name = `${stage}${index}`;
  return { name, stage, reason: reasonOf(name, plans[index] as GuardPlan) };
}

/** How the plan ends, worked out apart from the machine. */
function expectedOf(plan: Plan, script: readonly Reply[]): Expected {
  const atInput = firstTrip("input", plan.input);
  if (atInput !== undefined) return { status: "guardrail_tripped", steps: 0, tripped: atInput };
  let invalid = 0;
  for (const [index, reply] of script.entries()) {
    const steps = index + 1;
    if (reply === "call") continue;
    if (reply === "valid") {
      const atOutput = firstTrip("output", plan.output);
      return atOutput === undefined
        ? { status: "done", steps }
        : { status: "guardrail_tripped", steps, tripped: atOutput };
    }
    invalid++;
    if (invalid > plan.outputRetries) return { status: "invalid_output", steps };
  }
  return { status: "step_limit", steps: plan.maxSteps };
}

/** Runs a plan through runAgent: what it gave, its log, and the counters of its checks. */
async function planned(plan: Plan, signal?: AbortSignal) {
  const script = [...plan.replies, ...Array.from({ length: plan.maxSteps }, () => "valid" as const)].slice(
    0,
    plan.maxSteps,
  );
  const validated = { count: 0 };
  const output = z.object({ celsius: z.number() }).refine(() => {
    validated.count++;
    return true;
  });
  const checked: { count: number; names: string[] } = { count: 0, names: [] };
  const guardrails = {
    input: plan.input.map((guard, index) => guardrailOf("input", index, guard, checked)),
    output: plan.output.map((guard, index) => guardrailOf("output", index, guard, checked)),
  };
  const { registry } = makeWeatherRegistry();
  const model = scriptedModel(script.map((reply, index) => replyOf(reply, index + 1)));
  const store = new MemoryEventStore();
  const options = { maxSteps: plan.maxSteps, tokenBudget: 1_000_000, outputRetries: plan.outputRetries };
  const cancel = signal === undefined ? {} : { signal };
  const result = await runAgent("Weather in Pune?", model, registry, {
    ...options,
    output,
    guardrails,
    store,
    ...cancel,
  });
  return { script, result, store, validated, checked, model, registry, output, guardrails };
}

describe("typed answers and guardrails, over random runs", () => {
  it("keep their bounds, end as planned whatever order the checks finish in, and replay and resume calling nothing", async () => {
    await fc.assert(
      fc.asyncProperty(planArb, async (plan) => {
        const { script, result, store, validated, checked, model, registry, output, guardrails } = await planned(plan);
        const expected = expectedOf(plan, script);
        expect(result.status).toBe(expected.status);
        expect(result.steps).toBe(expected.steps);
        expect(result.steps).toBeLessThanOrEqual(plan.maxSteps);
        expect(model.seen).toHaveLength(expected.steps);
        expect(result.guardrail).toEqual(expected.tripped);
        const errors = result.messages.filter((m) => m.role === "user" && contentText(m.content).startsWith("ERROR:"));
        expect(errors.length).toBeLessThanOrEqual(plan.outputRetries);
        if (result.status === "done") expect(result.output).toEqual({ celsius: result.steps });
        else expect(result.output).toBeUndefined();

        const log = await store.read(result.runId as string);
        const firstReply = log.findIndex((event) => event.type === "model.replied");
        const inputVerdicts = log.filter((e) => e.type === "guardrail.checked" && e.stage === "input");
        if (firstReply >= 0) expect(inputVerdicts.every((e) => e.seq < firstReply)).toBe(true);
        if (firstReply >= 0) expect(inputVerdicts).toHaveLength(plan.input.length);

        const calls = { validated: validated.count, checked: checked.count };
        const replayed = replayRun(log, { runId: result.runId as string }).result;
        expect(replayed).toEqual({ ...result, runId: undefined });
        const resumed = await resumeAgent(result.runId as string, model, registry, { store, output, guardrails });
        expect(resumed).toEqual(result);
        expect({ validated: validated.count, checked: checked.count }).toEqual(calls);
      }),
      { numRuns: 80 },
    );
  });

  it("a run cut off anywhere, or forked there, resumes to the same end, calling only the checks whose verdicts it had not logged", async () => {
    await fc.assert(
      fc.asyncProperty(planArb, fc.nat(), async (plan, at) => {
        const { script, result, store, validated, checked, output, guardrails, registry } = await planned(plan);
        const runId = result.runId as string;
        const log = await store.read(runId);
        // A cut after a tool started would resume into the interrupted call's own rules: not this test's.
        const cuts = log.flatMap((_event, index) =>
          index > 0 && log[index - 1]?.type !== "tool.started" ? [index] : [],
        );
        const cut = cuts[at % cuts.length] as number;
        const prefix = log.slice(0, cut);
        const cutStore = new MemoryEventStore();
        for (const event of prefix) await cutStore.append(runId, event);
        // A fork that keeps the same events goes on from there the same way, in a run of its own.
        const forkId = await forkRun(store, runId, { keep: cut, runId: `${runId}-fork` });
        const replied = prefix.filter((event) => event.type === "model.replied").length;
        const rest = () =>
          scriptedModel(script.slice(replied).map((reply, index) => replyOf(reply, replied + index + 1)));
        const logged = prefix.flatMap((event) => (event.type === "guardrail.checked" ? [event.name] : []));
        const checks = log.slice(cut).filter((event) => event.type === "output.checked").length;
        for (const [id, from] of [
          [runId, cutStore],
          [forkId, store],
        ] as const) {
          const before = validated.count;
          checked.names.length = 0;
          const resumed = await resumeAgent(id, rest(), registry, { store: from, output, guardrails });
          expect(resumed).toEqual({ ...result, runId: id });
          for (const name of logged) expect(checked.names).not.toContain(name);
          expect(validated.count - before).toBeLessThanOrEqual(checks);
        }
      }),
      { numRuns: 80 },
    );
  });

  it("a cancel at any moment, a check under way or not, ends the run cancelled or as planned, and its log replays to it", async () => {
    await fc.assert(
      fc.asyncProperty(planArb, fc.nat(12), async (plan, ticks) => {
        const controller = new AbortController();
        const cancelling = (async () => {
          for (let tick = 0; tick < ticks; tick++) await new Promise((resolve) => setImmediate(resolve));
          controller.abort();
        })();
        const { script, result, store, validated, checked, output, guardrails, registry } = await planned(
          plan,
          controller.signal,
        );
        await cancelling;
        if (result.status === "cancelled") {
          expect(result.answer).toBeNull();
          expect(result.output).toBeUndefined();
          expect(result.guardrail).toBeUndefined();
        } else {
          const expected = expectedOf(plan, script);
          expect(result.status).toBe(expected.status);
          expect(result.guardrail).toEqual(expected.tripped);
        }
        const runId = result.runId as string;
        const log = await store.read(runId);
        const cancelled = log.findIndex((event) => event.type === "run.cancelled");
        if (cancelled >= 0) expect(log.slice(cancelled + 1).map((event) => event.type)).toEqual(["run.finished"]);
        const calls = { validated: validated.count, checked: checked.count };
        expect(replayRun(log, { runId }).result).toEqual({ ...result, runId: undefined });
        const resumed = await resumeAgent(runId, scriptedModel([]), registry, { store, output, guardrails });
        expect(resumed).toEqual(result);
        expect({ validated: validated.count, checked: checked.count }).toEqual(calls);
      }),
      { numRuns: 80 },
    );
  });
});
