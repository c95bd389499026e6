import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { hangGuard } from "../../../../hang-guard.js";
import {
  type AgentResult,
  type Approver,
  continueAgent,
  type Decision,
  type EventStore,
  MemoryEventStore,
  type Model,
  ModelError,
  type ModelReply,
  replayRun,
  resumeAgent,
  runAgent,
} from "../../src/index.js";
import { JsonlEventStore } from "../../src/stores/jsonl-store.js";
import { comparable, STATE_OF } from "../run/trace.js";
import { makeTools, type Plan, planArb, plannedCall, scriptOf } from "../safeguards/safeguard-plans.js";

/**
 * Never a log the reader refuses: whatever a run goes through — approvals given, denied with any
 * reason or left for later, timeouts, cancellations, repeats, usage, a history carried over, a
 * refusal, a model that fails, a conversation taken further — the log it leaves reads back
 * through every store in core, event for event, and replays to the run's result.
 */

interface LogPlan {
  readonly plan: Plan;
  /** The store the run writes; the log is then copied into the other kind, and read back from both. */
  readonly store: "memory" | "jsonl";
  /** Any text, lone surrogates included: the task, a denial's reason, the next message. */
  readonly task: string;
  readonly reason: string;
  /** The reply at this place (if the script has it) is a refusal, with its calls. */
  readonly refuseAt: number | null;
  /** The model throws at this call (counting from 0 over the run's every stretch). */
  readonly failAt: number | null;
  /** No token budget at all (logged as null). */
  readonly unlimited: boolean;
  /** A finished run goes on with this message. */
  readonly next: string | null;
}

const anyText = fc.string({ unit: "binary", maxLength: 8 });

const logPlanArb: fc.Arbitrary<LogPlan> = fc.record({
  plan: planArb,
  store: fc.constantFrom<LogPlan["store"]>("memory", "jsonl"),
  task: anyText,
  reason: anyText,
  refuseAt: fc.option(fc.nat(6), { nil: null }),
  failAt: fc.option(fc.nat(8), { nil: null }),
  unlimited: fc.boolean(),
  next: fc.option(anyText, { nil: null }),
});

const directory = mkdtempSync(join(tmpdir(), "agentloop-logs-"));
afterAll(() => rmSync(directory, { recursive: true, force: true }));
let runs = 0;

function storeOf(kind: LogPlan["store"]): EventStore {
  return kind === "memory" ? new MemoryEventStore() : new JsonlEventStore(join(directory, `store-${runs}-${kind}`));
}

/** What the run and its resumes and next turn gave: the last result, or the model's failure. */
type Ended = { readonly result: AgentResult } | { readonly failure: ModelError };

async function run(lp: LogPlan, store: EventStore, runId: string): Promise<Ended> {
  const { plan } = lp;
  const controller = new AbortController();
  let invoked = 0;
  const invoke = () => {
    invoked += 1;
    if (plan.abort?.at !== invoked) return;
    const abort = () => controller.abort(new Error("stopped by the test"));
    if (plan.abort.mode === "inside") abort();
    else setTimeout(abort, 0);
  };
  const registry = makeTools({ started: invoke, settled: () => {} });
  const script: ModelReply[] = scriptOf(plan).map((reply, i) =>
    i === lp.refuseAt && i < plan.replies.length
      ? { ...reply, content: "I will not.", finishReason: "refusal" }
      : reply,
  );
  let calls = 0;
  const model: Model = () => {
    invoke();
    const call = calls++;
    if (call === lp.failAt) throw new Error("the model is down");
    return script[call] ?? { content: "more", toolCalls: [] };
  };
  const approve: Approver = (call) => {
    invoke();
    const decided = plannedCall(plan, call.args.to).verdict;
    const decision: Decision | undefined =
      decided === "pause"
        ? undefined
        : decided === "approve"
          ? { approved: true }
          : { approved: false, reason: lp.reason };
    return plan.approver === "sync" ? decision : new Promise((resolve) => setTimeout(() => resolve(decision), 0));
  };
  const ports = {
    store,
    signal: controller.signal,
    toolTimeoutMs: plan.toolTimeoutMs,
    ...(plan.approver === "none" ? {} : { approve }),
  };
  try {
    let result = await runAgent(lp.task, model, registry, {
      ...ports,
      runId,
      maxSteps: plan.maxSteps,
      tokenBudget: lp.unlimited ? Number.POSITIVE_INFINITY : plan.tokenBudget,
      ...(plan.history.length === 0 ? {} : { history: plan.history }),
      ...(plan.repeatLimit === null ? {} : { repeatLimit: plan.repeatLimit }),
      ...(plan.onRepeatedCall === null ? {} : { onRepeatedCall: plan.onRepeatedCall }),
      ...(plan.toolConcurrency === null ? {} : { toolConcurrency: plan.toolConcurrency }),
    });
    for (
      let resumes = 0;
      result.status === "awaiting_approval" && !controller.signal.aborted && resumes < 30;
      resumes++
    ) {
      const decisions: Record<string, Decision> = {};
      for (const call of result.pendingApprovals ?? []) {
        decisions[call.id] = { approved: plannedCall(plan, call.args.to).later === "approve" };
      }
      result = await resumeAgent(runId, model, registry, { ...ports, decisions });
    }
    if (lp.next !== null && result.status !== "awaiting_approval" && !controller.signal.aborted) {
      result = await continueAgent(runId, lp.next, model, registry, ports);
    }
    return { result };
  } catch (error) {
    if (!(error instanceof ModelError)) throw error;
    return { failure: error };
  }
}

describe("every log a run writes", () => {
  it(
    "reads back through MemoryEventStore and JsonlEventStore, event for event, and replays to the run's result",
    async () => {
      await fc.assert(
        fc.asyncProperty(logPlanArb, async (lp) => {
          runs += 1;
          const runId = `run-${runs}`;
          const store = storeOf(lp.store);
          const ended = await run(lp, store, runId);
          const events = await store.read(runId);
          expect(events.length).toBeGreaterThan(0);
          // Copied into the other kind of store, the log reads back the same from there.
          const other = storeOf(lp.store === "memory" ? "jsonl" : "memory");
          for (const event of events) await other.append(runId, event);
          expect(await other.read(runId)).toEqual(events);
          for (const readable of [store, other]) {
            expect((await readable.list()).map((summary) => summary.runId)).toContain(runId);
          }
          const replay = replayRun(events, { runId });
          if ("failure" in ended) {
            // A failed model call leaves a log that stops before the failed step, ready to resume.
            expect(replay.result).toBeNull();
            expect(replay.snapshot.value).toBe("callingModel");
            expect(replay.context.transcript.toJSON()).toEqual(ended.failure.messages);
            return;
          }
          const { result } = ended;
          expect(replay.snapshot.value).toEqual(STATE_OF[result.status]);
          if (result.status === "awaiting_approval") {
            expect(replay.result).toBeNull();
            expect(replay.context.transcript.toJSON()).toEqual(result.messages);
          } else {
            expect(replay.result).toEqual(comparable(result));
            expect(replay.finished).toBe(true);
          }
        }),
        { numRuns: 200 },
      );
    },
    hangGuard(60_000),
  );
});
