import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { InspectionEvent } from "xstate";
import { hangGuard } from "../../../../hang-guard.js";
import {
  type AgentResult,
  type Approver,
  contentText,
  countTokens,
  type Decision,
  MemoryEventStore,
  type Message,
  type Model,
  type RunOptions,
  replayRun,
  resumeAgent,
  runAgent,
} from "../../src/index.js";
import type { ModelWithLimits } from "../../src/machine.js";
import { comparable, STATE_OF, traceProblem } from "../run/trace.js";
import {
  assistantOf,
  closedOf,
  decisionOf,
  makeTools,
  type Plan,
  planArb,
  plannedCall,
  reserveOf,
  scriptOf,
  toolMessage,
} from "../safeguards/safeguard-plans.js";
import { type Expected, expectedRun, type Open } from "../safeguards/safeguard-rules.js";

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
  /** Every decision given, by the approver or to a resume, for the call its token names. */
  readonly decisions: { readonly token: string; readonly approved: boolean }[];
  /** The most tool functions and approvers at work at once, as they counted themselves. */
  readonly busiest: number;
  readonly store: MemoryEventStore | null;
  readonly specsTokens: number;
  /** The state of the machine when the last run (or resume) left it, as the inspection stream showed it. */
  readonly lastState: unknown;
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
  let busy = 0;
  let busiest = 0;
  const enter = () => {
    busy += 1;
    busiest = Math.max(busiest, busy);
  };
  const executions: string[] = [];
  const toolSignals: Outcome["toolSignals"][number][] = [];
  const registry = makeTools({
    started: (name, args, signal) => {
      enter();
      invoke(name);
      executions.push(`${name} ${JSON.stringify(args)}`);
      toolSignals.push({ name, signal });
    },
    settled: () => {
      busy -= 1;
    },
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
    enter();
    invoke("approver");
    const token = String(call.args.to);
    const decision = decisionOf(plannedCall(plan, token));
    if (decision !== undefined) decisions.push({ token, approved: decision.approved });
    const done = () => {
      busy -= 1;
      return decision;
    };
    if (plan.approver === "sync") return done();
    return new Promise((resolve) => setTimeout(() => resolve(done()), 0));
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
    ...(plan.history.length === 0 ? {} : { history: plan.history }),
    ...(plan.reserve === "option" ? { replyReserve: reserveOf(plan) } : {}),
    ...(plan.repeatLimit === null ? {} : { repeatLimit: plan.repeatLimit }),
    ...(plan.onRepeatedCall === null ? {} : { onRepeatedCall: plan.onRepeatedCall }),
    ...(plan.toolConcurrency === null ? {} : { toolConcurrency: plan.toolConcurrency }),
    ...(store === null ? {} : { store, runId: RUN_ID }),
  };
  const results = [await runAgent(plan.task, model, registry, options)];
  for (let last = results[0]; store !== null && last?.status === "awaiting_approval"; last = results.at(-1)) {
    if (controller.signal.aborted) break;
    const given: Record<string, Decision> = {};
    for (const call of last.pendingApprovals ?? []) {
      const token = String(call.args.to);
      const approved = plannedCall(plan, token).later === "approve";
      given[call.id] = { approved };
      decisions.push({ token, approved });
    }
    results.push(await resumeAgent(RUN_ID, model, registry, { ...safeguards, store, decisions: given }));
    expect(results.length).toBeLessThan(40);
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
    busiest,
    store,
    specsTokens,
    lastState,
  };
}

function closes(open: readonly Open[]): Message[] {
  return open.map(({ call, content }) => toolMessage(call, content ?? closedOf(call.name, "cancelled")));
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
    pending: [...pending],
  };
}

/** Invocation kinds as the run saw them: `model`, `tool` or `approver`. */
function kindsOf(invoked: readonly string[]): string[] {
  return invoked.map((what) => (what === "model" || what === "approver" ? what : "tool"));
}

/** Invocations cut into one group per model call, each group sorted: what calls at once leave determined. */
function perStep(kinds: readonly string[]): string[][] {
  const groups: string[][] = [];
  for (const kind of kinds) {
    if (kind === "model" || groups.length === 0) groups.push([]);
    groups.at(-1)?.push(kind);
  }
  return groups.map((group) => group.sort());
}

/**
 * Checks a run against the rules: exactly the expected result when nothing cancels it, or when
 * the abort falls inside an invocation and calls run one at a time; otherwise, a cancelled result
 * whose list is the expected one up to its last reply, and whose last tool messages are each the
 * expected one or the cancellation's (or the expected result, if the run was over first).
 */
function checkAgainstRules(o: Outcome): void {
  const { plan, result } = o;
  const expected = expectedRun(plan, o.specsTokens);
  const oneAtATime = plan.toolConcurrency === 1;
  const abortAt = plan.abort === null ? null : plan.abort.at - 1;
  const first = expected.pauses[0];
  // Without a store a run ends at its first pause; with one, each pause is resumed (unless an abort came first).
  let unaborted = endOf(expected, o.store === null && first !== undefined ? 0 : null);
  if (o.store !== null && result.status === "awaiting_approval") unaborted = endOf(expected, o.results.length - 1);
  const reached = o.store === null && first !== undefined ? first.invoked : expected.invocations.length;
  const fired = abortAt !== null && abortAt < reached;
  const actual = actualOf(o);
  const inv = abortAt === null ? undefined : expected.invocations[abortAt];
  if (!fired || (plan.abort?.mode === "after" && result.status !== "cancelled")) {
    expect(actual).toEqual(unaborted);
  } else if (plan.abort?.mode === "inside" && oneAtATime && inv !== undefined) {
    // Nothing is invoked once the run is cancelled; every call asked for gets a closing message.
    expect(o.invoked.length).toBe((abortAt ?? 0) + 1);
    expect(actual).toEqual({
      status: "cancelled",
      answer: null,
      steps: inv.steps,
      tokens: inv.tokens,
      messages: [...inv.messages, ...closes(inv.open)],
      executions: inv.executed,
      pending: undefined,
    });
  } else {
    expect(result.status).toBe("cancelled");
    if (plan.abort?.mode === "inside") expect(o.invoked.length).toBe((abortAt ?? 0) + 1);
    const reply = result.messages.findLastIndex((m) => m.role === "assistant");
    expect(result.messages.slice(0, reply + 1)).toEqual(unaborted.messages.slice(0, reply + 1));
    for (const [k, m] of result.messages.slice(reply + 1).entries()) {
      const cancelled =
        m.role === "tool"
          ? toolMessage({ id: m.toolCallId, name: m.name, args: {} }, closedOf(m.name, "cancelled"))
          : null;
      // A call that finished before the cancel keeps its result, even where the uncancelled run
      // had not appended it yet (an earlier call of its reply was still waiting for a decision).
      // (That a risky call ran only on its approval is checked apart, below.)
      const own =
        m.role === "tool"
          ? expected.messages.find((e) => e.role === "tool" && e.toolCallId === m.toolCallId)
          : undefined;
      expect([unaborted.messages[reply + 1 + k], cancelled, own]).toContainEqual(m);
    }
  }
  const kinds = kindsOf(o.invoked);
  const expectedKinds = expected.invocations.map((i) => i.kind);
  if (oneAtATime) {
    // The model, the tools and the approver were invoked in the order the rules give, and never more: a
    // logged reply or result is not asked for again on resume, nor a logged decision.
    expect(o.executions).toEqual(expected.executions.slice(0, o.executions.length));
    expect(kinds).toEqual(expectedKinds.slice(0, kinds.length));
  } else {
    // Calls at once: what each model call led to is invoked, in some order, and nothing else.
    const actualSteps = perStep(kinds);
    const expectedSteps = perStep(expectedKinds);
    expect(actualSteps.slice(0, -1)).toEqual(expectedSteps.slice(0, actualSteps.length - 1));
    const last = [...(actualSteps.at(-1) ?? [])];
    for (const kind of expectedSteps[actualSteps.length - 1] ?? []) last.splice(last.indexOf(kind) >>> 0, 1);
    expect(last).toEqual([]);
    const left = [...expected.executions];
    for (const e of o.executions) {
      expect(left).toContain(e);
      left.splice(left.indexOf(e), 1);
    }
  }
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
    // Append-only: each later list extends the earlier one.
    expect(result.messages.slice(0, r.messages.length)).toEqual(r.messages);
  }
  for (const [i, list] of seen.entries()) {
    expect(traceProblem(list)).toBeNull();
    expect(list.filter((m) => m.role === "assistant").length).toBe(
      i + plan.history.filter((m) => m.role === "assistant").length,
    );
    expect(list).toEqual(result.messages.slice(0, list.length));
  }
  // Calls in progress at once, counted by the tools and the approver themselves: never more than the cap.
  expect(o.busiest).toBeLessThanOrEqual(plan.toolConcurrency ?? Number.POSITIVE_INFINITY);
  // Model calls: never more than maxSteps; one per step, and one more only for a call that was cancelled.
  expect(seen.length).toBeLessThanOrEqual(plan.maxSteps);
  expect(seen.length - result.steps).toBe(result.status === "cancelled" && seen.length > result.steps ? 1 : 0);
  // Tokens: within the budget when the reserve covers every reply; otherwise only the last reply can overspend.
  if (plan.reserve !== "none") expect(result.tokens).toBeLessThanOrEqual(plan.tokenBudget);
  const lastReply = result.messages.findLast((m) => m.role === "assistant");
  expect(result.tokens).toBeLessThanOrEqual(plan.tokenBudget + (lastReply === undefined ? 0 : countTokens(lastReply)));
  if (!paused) expect(result.tokensOverBudget ?? 0).toBe(Math.max(0, result.tokens - plan.tokenBudget));
  // A call that needs approval runs only after a decision approving that very call, and at most once.
  const approved = new Set(o.decisions.filter((d) => d.approved).map((d) => d.token));
  const risky = o.executions.filter((e) => e.startsWith("risky "));
  for (const e of risky) expect(approved.has(String(JSON.parse(e.slice(6)).to))).toBe(true);
  expect(new Set(risky).size).toBe(risky.length);
  expect(new Set(o.decisions.map((d) => d.token)).size).toBe(o.decisions.length);
  // Every signal given to a tool that never settles, and to the model, is aborted by the end.
  for (const { name, signal } of o.toolSignals)
    if (name === "hang" || name === "stall") expect(signal.aborted).toBe(true);
  for (const signal of o.modelSignals) expect(signal.aborted).toBe(true);
  // The machine ended in the state the status names (paused: waiting for a decision).
  expect(o.lastState).toEqual(STATE_OF[result.status]);
  if (o.store !== null) await checkLog(o);
}

/** The log: it replays to the live result and the state the status names; each decision is in it once; tools start in the order they ran. */
async function checkLog(o: Outcome): Promise<void> {
  const { result } = o;
  const log = await (o.store as MemoryEventStore).read(RUN_ID);
  const replay = replayRun(log);
  expect(replay.snapshot.value).toEqual(STATE_OF[result.status]);
  if (result.status === "awaiting_approval") {
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
    if (m.role !== "tool" || m.name !== "risky" || contentText(m.content).includes("not run to completion")) continue;
    expect(decided).toContain(m.toolCallId);
  }
  // The tools whose functions run were started in the log in the order their functions were invoked.
  const calls = new Map(
    result.messages.flatMap((m) => (m.role === "assistant" ? m.toolCalls.map((c) => [c.id, c]) : [])),
  );
  const started = log.flatMap((e) => {
    const call = e.type === "tool.started" ? calls.get(e.callId) : undefined;
    return call === undefined || call.name === "nope" ? [] : [`${call.name} ${JSON.stringify(call.args)}`];
  });
  if (result.status === "cancelled") expect(o.executions).toEqual(started.slice(0, o.executions.length));
  else expect(o.executions).toEqual(started);
}

describe("runAgent with every safeguard, over random plans", () => {
  it(
    "keeps its invariants and gives what the rules say: calls at once, approvers, timeouts, aborts, repeats, usage",
    async () => {
      await fc.assert(
        fc.asyncProperty(planArb, async (plan) => {
          const outcome = await run(plan);
          await checkInvariants(outcome);
          checkAgainstRules(outcome);
        }),
        { numRuns: 250 },
      );
    },
    hangGuard(60_000),
  );
});
