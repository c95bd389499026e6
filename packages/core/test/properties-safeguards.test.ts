import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { InspectionEvent } from "xstate";
import {
  type AgentResult,
  type Approver,
  countTokens,
  type Decision,
  MemoryEventStore,
  type Message,
  type Model,
  type RunOptions,
  replayRun,
  resumeAgent,
  runAgent,
  type ToolCall,
} from "../src/index.js";
import type { ModelWithLimits } from "../src/machine.js";
import {
  assistantOf,
  closedOf,
  decisionOf,
  type Expected,
  expectedRun,
  makeTools,
  type Plan,
  type PlannedCall,
  planArb,
  reserveOf,
  scriptOf,
} from "./safeguard-plans.js";
import { comparable, STATE_OF, traceProblem } from "./trace.js";

const RUN_ID = "run";

interface Outcome {
  readonly plan: Plan;
  /** The first run's result, then each resume's. */
  readonly results: AgentResult[];
  readonly result: AgentResult;
  /** What was invoked, in order: `model`, a tool's name, `approver`. */
  readonly invoked: string[];
  readonly executions: string[];
  readonly seen: Message[][];
  readonly modelSignals: AbortSignal[];
  readonly toolSignals: { readonly name: string; readonly signal: AbortSignal }[];
  /** Every decision given: by the approver, or to a resume. */
  readonly decisions: { readonly id: string; readonly approved: boolean }[];
  readonly store: MemoryEventStore | null;
  readonly specsTokens: number;
  /** The state of the machine when the last run (or resume) left it, as the inspection stream showed it. */
  readonly lastState: unknown;
}

function plannedCall(plan: Plan, id: string): PlannedCall {
  const found = plan.replies.flatMap((r) => r.calls).find((c) => c.call.id === id);
  if (found === undefined) throw new Error(`no planned call ${id}`);
  return found;
}

/** Runs a plan: the first run, then, with a store, a resume for every pause (unless the run was aborted meanwhile). */
async function run(plan: Plan): Promise<Outcome> {
  const controller = new AbortController();
  const invoked: string[] = [];
  const invoke = (what: string) => {
    invoked.push(what);
    if (plan.abort?.at !== invoked.length) return;
    const abort = () => controller.abort(new Error("stopped by the test"));
    if (plan.abort.mode === "inside") abort();
    else setTimeout(abort, 0);
  };
  const executions: string[] = [];
  const toolSignals: Outcome["toolSignals"][number][] = [];
  const registry = makeTools((name, args, signal) => {
    invoke(name);
    executions.push(`${name} ${JSON.stringify(args)}`);
    toolSignals.push({ name, signal });
  });
  const script = scriptOf(plan);
  const seen: Message[][] = [];
  const modelSignals: AbortSignal[] = [];
  const base: Model = (messages, tools, { signal }) => {
    invoke("model");
    seen.push(structuredClone([...messages]));
    modelSignals.push(signal);
    const i = seen.length - 1;
    const reply = script[i];
    if (reply === undefined) throw new Error("script ran out");
    const usage = plan.replies[i]?.usage ?? null;
    if (usage === null) return reply;
    const prompt = countTokens(tools) + countTokens(messages);
    const inputTokens = Math.max(0, prompt - usage.lessIn);
    const outputTokens = Math.max(0, countTokens(assistantOf(reply)) - usage.lessOut);
    return { ...reply, usage: { inputTokens, outputTokens } };
  };
  const model: ModelWithLimits =
    plan.reserve === "model" ? Object.assign(base, { maxReplyTokens: reserveOf(plan) }) : base;
  const decisions: Outcome["decisions"][number][] = [];
  const approve: Approver = (call) => {
    invoke("approver");
    const decision = decisionOf(plannedCall(plan, call.id));
    if (decision !== undefined) decisions.push({ id: call.id, approved: decision.approved });
    if (plan.approver === "sync") return decision;
    return new Promise((resolve) => setTimeout(() => resolve(decision), 0));
  };
  const store = plan.store ? new MemoryEventStore() : null;
  let lastState: unknown;
  const safeguards = {
    toolTimeoutMs: plan.toolTimeoutMs,
    signal: controller.signal,
    inspect: (event: InspectionEvent) => {
      if (event.type === "@xstate.snapshot" && event.actorRef.sessionId === event.rootId) {
        lastState = (event.snapshot as { value?: unknown }).value;
      }
    },
    ...(plan.approver === "none" ? {} : { approve }),
    ...(plan.maxResultChars === null ? {} : { maxResultChars: plan.maxResultChars }),
  };
  const options: RunOptions = {
    ...safeguards,
    maxSteps: plan.maxSteps,
    tokenBudget: plan.tokenBudget,
    ...(plan.reserve === "option" ? { replyReserve: reserveOf(plan) } : {}),
    ...(plan.repeatLimit === null ? {} : { repeatLimit: plan.repeatLimit }),
    ...(plan.onRepeatedCall === null ? {} : { onRepeatedCall: plan.onRepeatedCall }),
    ...(store === null ? {} : { store, runId: RUN_ID }),
  };
  const results = [await runAgent(plan.task, model, registry, options)];
  for (let last = results[0]; store !== null && last?.status === "awaiting_approval"; last = results.at(-1)) {
    if (controller.signal.aborted) break;
    const given: Record<string, Decision> = {};
    for (const call of last.pendingApprovals ?? []) {
      const approved = plannedCall(plan, call.id).later === "approve";
      given[call.id] = { approved };
      decisions.push({ id: call.id, approved });
    }
    results.push(await resumeAgent(RUN_ID, model, registry, { ...safeguards, store, decisions: given }));
    expect(results.length).toBeLessThan(30);
  }
  const result = results.at(-1) as AgentResult;
  const specsTokens = countTokens(registry.specs());
  return {
    plan,
    results,
    result,
    invoked,
    executions,
    seen,
    modelSignals,
    toolSignals,
    decisions,
    store,
    specsTokens,
    lastState,
  };
}

function closes(calls: readonly ToolCall[]): Message[] {
  return calls.map((c) => ({ role: "tool", toolCallId: c.id, name: c.name, content: closedOf(c.name, "cancelled") }));
}

/** The result fields a plan decides, and how many tool functions ran. */
function actualOf(o: Outcome) {
  const { status, answer, steps, tokens, messages, pendingApprovals } = o.result;
  return { status, answer, steps, tokens, messages, executions: o.executions.length, pending: pendingApprovals };
}

/** What the run gives when nothing cancels it: its end, or the pause it stopped at (`awaiting_approval`). */
function endOf(expected: Expected, pause: number | null): ReturnType<typeof actualOf> {
  const p = pause === null ? undefined : expected.pauses[pause];
  if (p === undefined) {
    const { status, answer, steps, tokens, messages, executions } = expected;
    return {
      status,
      answer,
      steps,
      tokens,
      messages: [...messages],
      executions: executions.length,
      pending: undefined,
    };
  }
  const { steps, tokens, messages, executed, pending } = p;
  return {
    status: "awaiting_approval",
    answer: null,
    steps,
    tokens,
    messages: [...messages],
    executions: executed,
    pending,
  };
}

/**
 * Checks a run against the rules: exactly the expected result when nothing cancels it or the abort falls
 * inside an invocation; when it falls just after one, a cancelled result whose list, less its closing
 * messages, is the start of the expected one (or the expected result, if the run was over first).
 */
function checkAgainstRules(o: Outcome): void {
  const { plan, result } = o;
  const expected = expectedRun(plan, o.specsTokens);
  const abortAt = plan.abort === null ? null : plan.abort.at - 1;
  const inv = abortAt === null ? undefined : expected.invocations[abortAt];
  const first = expected.pauses[0];
  // Without a store a run ends at its first pause; with one, each pause is resumed (unless an abort came first).
  let unaborted = endOf(expected, o.store === null && first !== undefined ? 0 : null);
  if (o.store !== null && result.status === "awaiting_approval") unaborted = endOf(expected, o.results.length - 1);
  const pausedFirst =
    o.store === null &&
    first !== undefined &&
    abortAt !== null &&
    (abortAt > first.invoked || (abortAt === first.invoked && plan.approver === "none"));
  const actual = actualOf(o);
  if (inv === undefined || pausedFirst || (plan.abort?.mode === "after" && result.status !== "cancelled")) {
    expect(actual).toEqual(unaborted);
  } else if (plan.abort?.mode === "inside") {
    // Nothing is invoked once the run is cancelled; every call asked for gets a closing message.
    expect(o.invoked.length).toBe((abortAt ?? 0) + 1);
    expect(actual).toEqual({
      status: "cancelled",
      answer: null,
      steps: inv.steps,
      tokens: inv.tokens,
      messages: [...inv.messages, ...closes(inv.pending)],
      executions: inv.executed,
      pending: undefined,
    });
  } else {
    expect(result.status).toBe("cancelled");
    const open = result.messages.findIndex((m) => m.role === "tool" && m.content === closedOf(m.name, "cancelled"));
    const kept = open === -1 ? result.messages : result.messages.slice(0, open);
    expect(kept.length).toBeGreaterThanOrEqual(inv.messages.length);
    expect(kept).toEqual(unaborted.messages.slice(0, kept.length));
  }
  expect(o.executions).toEqual(expected.executions.slice(0, o.executions.length));
  // The model, the tools and the approver were invoked in the order the rules give, and never more: a
  // logged reply or result is not asked for again on resume, nor a logged decision.
  const kinds = o.invoked.map((what) => (what === "model" || what === "approver" ? what : "tool"));
  expect(kinds).toEqual(expected.invocations.slice(0, kinds.length).map((i) => i.kind));
  if (result.status !== "cancelled" && result.status !== "awaiting_approval") {
    expect(kinds).toHaveLength(expected.invocations.length);
  }
}

/** The invariants every run keeps, whatever happened to it. */
async function checkInvariants(o: Outcome): Promise<void> {
  const { plan, result, seen } = o;
  const paused = result.status === "awaiting_approval";
  // One tool message per call, in call order, before any next model call; only a paused run has calls open.
  expect(traceProblem(result.messages, paused)).toBeNull();
  for (const r of o.results.slice(0, -1)) {
    expect(r.status).toBe("awaiting_approval");
    expect(traceProblem(r.messages, true)).toBeNull();
  }
  for (const [i, list] of seen.entries()) {
    expect(traceProblem(list)).toBeNull();
    expect(list.filter((m) => m.role === "assistant").length).toBe(i);
    expect(list).toEqual(result.messages.slice(0, list.length));
  }
  // Model calls: never more than maxSteps; one per step, and one more only for a call that was cancelled.
  expect(seen.length).toBeLessThanOrEqual(plan.maxSteps);
  expect(seen.length - result.steps).toBe(result.status === "cancelled" && seen.length > result.steps ? 1 : 0);
  // Tokens: within the budget when the reserve covers every reply; otherwise only the last reply can overspend.
  if (plan.reserve !== "none") expect(result.tokens).toBeLessThanOrEqual(plan.tokenBudget);
  const lastReply = result.messages.findLast((m) => m.role === "assistant");
  expect(result.tokens).toBeLessThanOrEqual(plan.tokenBudget + (lastReply === undefined ? 0 : countTokens(lastReply)));
  // A call that needs approval runs only after a decision approving it, and at most once.
  const approved = new Set(o.decisions.filter((d) => d.approved).map((d) => d.id));
  const risky = o.executions.filter((e) => e.startsWith("risky "));
  for (const e of risky) expect(approved.has(String(JSON.parse(e.slice(6)).to))).toBe(true);
  expect(new Set(risky).size).toBe(risky.length);
  // Every signal given to a tool that never settles, and to the model, is aborted by the end.
  for (const { name, signal } of o.toolSignals)
    if (name === "hang" || name === "stall") expect(signal.aborted).toBe(true);
  for (const signal of o.modelSignals) expect(signal.aborted).toBe(true);
  // The machine ended in the state the status names (paused: waiting for a decision).
  expect(o.lastState).toEqual(STATE_OF[result.status]);
  // The log: replaying it gives the live result, and the state the status names; each decision is in it.
  if (o.store === null) return;
  const log = await o.store.read(RUN_ID);
  const replay = replayRun(log);
  expect(replay.snapshot.value).toEqual(STATE_OF[result.status]);
  if (paused) {
    expect(replay.result).toBeNull();
    expect(log.at(-1)?.type).not.toBe("run.finished");
  } else {
    expect(replay.result).toEqual(comparable(result));
    expect(log.at(-1)?.type).toBe("run.finished");
  }
  expect(log.some((e) => e.type === "run.cancelled")).toBe(result.status === "cancelled");
  const decided = log.flatMap((e) => (e.type === "approval.decided" ? [e.callId] : []));
  expect(new Set(decided).size).toBe(decided.length);
  for (const m of result.messages) {
    if (m.role !== "tool" || m.name !== "risky" || m.content.includes("not run to completion")) continue;
    expect(decided).toContain(m.toolCallId);
  }
}

describe("runAgent with every safeguard, over random plans", () => {
  it("keeps its invariants and gives what the rules say: approvers, timeouts, aborts, repeats, long results, usage", async () => {
    await fc.assert(
      fc.asyncProperty(planArb, async (plan) => {
        const outcome = await run(plan);
        await checkInvariants(outcome);
        checkAgainstRules(outcome);
      }),
      { numRuns: 250 },
    );
  }, 60_000);
});
