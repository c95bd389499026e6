import { createActor, type InspectionEvent, type Observer, toPromise } from "xstate";
import { type AgentInput, type AgentOptions, type ModelWithLimits, resolveSettings } from "./agent-context.js";
import { pendingApprovals } from "./agent-decisions.js";
import { agentMachine } from "./agent-machine.js";
import { isCharLimit } from "./cut-result.js";
import { EventLogError } from "./errors.js";
import { EVENT_LOG_SCHEMA_VERSION } from "./event-log.js";
import type { EventStore } from "./event-store.js";
import { Journal } from "./journal.js";
import { type AgentActor, type Approver, driveEffects, type EffectPorts, type Resumption } from "./run-effects.js";
import { isTimeout, MAX_TIMER_MS } from "./run-guarded.js";
import type { ToolRegistry } from "./tool-registry.js";
import { messagesOf } from "./transcript.js";
import type { AgentResult } from "./types.js";

/** Options of `runAgent`: limits and policies, safeguards, and where to keep the run's event log. */
export interface RunOptions extends AgentOptions, Pick<EffectPorts, "approve" | "toolTimeoutMs" | "maxResultChars"> {
  /** Keeps the run's events there, so that it can be replayed, forked and resumed. */
  readonly store?: EventStore;
  /** The run's id in the store (letters, digits, `_`, `-`, `.`); a random UUID when not given. */
  readonly runId?: string;
  /** Aborting it stops the model call and the tools in flight and ends the run with `cancelled`. */
  readonly signal?: AbortSignal;
  /**
   * Handed to the actor: receives XState's inspection events (the machine definition, every event,
   * microstep and snapshot), e.g. `createBrowserInspector().inspect` from `@statelyai/inspect`.
   */
  readonly inspect?: Observer<InspectionEvent> | ((event: InspectionEvent) => void);
}

/**
 * Runs `task` to an exit: a final answer (`done`), `maxSteps` model calls (`step_limit`), a prompt
 * that would overspend `tokenBudget` (`token_budget`), a repeated call under the `stop` policy
 * (`repeated_call`), an abort (`cancelled`), or a call that waits for a decision nobody gave
 * (`awaiting_approval`, to be resumed) — always with the whole message list. With a `store`,
 * every event is logged before the machine sees it and the result carries the `runId`. Rejects
 * with `ModelError` when the model fails (the log stays resumable), and with a `RangeError` for
 * impossible limits.
 */
export async function runAgent(
  task: string,
  model: ModelWithLimits,
  registry: ToolRegistry,
  options: RunOptions = {},
): Promise<AgentResult> {
  const { store, runId: wantedId, signal, inspect, ...rest } = options;
  const input: AgentInput = { ...rest, task, model, registry };
  checkEffectLimits(input);
  if (store === undefined) return runLive(input, { signal, inspect });
  // Everything is checked before anything is logged: a refused run leaves no log behind.
  const settings = resolveSettings(input);
  const runId = wantedId ?? globalThis.crypto.randomUUID();
  // One writer per run: the lock is taken before the run is looked for, and held to the end.
  const lock = await store.acquire?.(runId);
  try {
    if ((await store.read(runId)).length > 0) {
      throw new EventLogError(`run '${runId}' already exists: resume it, or start a run with a new id`, {
        runId,
        position: 0,
      });
    }
    const journal = new Journal(store, runId);
    await journal.commit({ type: "run.started", schemaVersion: EVENT_LOG_SCHEMA_VERSION, settings });
    return await runLive({ ...input, settings, journal }, { signal, inspect });
  } finally {
    await lock?.release();
  }
}

/**
 * Runs a live machine until it ends or waits for a decision nobody gives; `from` continues a
 * resumed run from its replayed state instead of the start. With a journal, the cancellation and
 * the end are logged (`run.cancelled`, `run.finished`); a paused run's log just stops, ready for
 * `resumeAgent`.
 */
export async function runLive(
  input: AgentInput,
  { signal, inspect, from }: Pick<RunOptions, "signal" | "inspect"> & { readonly from?: Resumption } = {},
): Promise<AgentResult> {
  const { journal } = input;
  // Settles when the run pauses for a decision nobody gave, or fails (the model, the store).
  let pause = () => {};
  let fail = (_error: unknown) => {};
  const halted = new Promise<"paused">((resolve, reject) => {
    pause = () => resolve("paused");
    fail = reject;
  });
  const approve: Approver = async (call) => {
    const decision = await input.approve?.(call);
    // No decision pauses the run, unless it is being cancelled: then it ends as cancelled.
    if (decision === undefined && signal?.aborted !== true) pause();
    return decision;
  };
  const restored = from === undefined ? {} : { snapshot: agentMachine.getPersistedSnapshot(from.snapshot) };
  const actor = createActor(agentMachine, { input, ...restored, ...(inspect === undefined ? {} : { inspect }) });
  const ended = toPromise(actor);
  const stopEffects = driveEffects(actor, { ...input, approve, signal }, fail, from);
  const cancel = () => cancelRun(actor, journal, signal?.reason).catch(fail);
  signal?.addEventListener("abort", cancel, { once: true });
  try {
    actor.start();
    if (signal?.aborted) cancel();
    const outcome = await Promise.race([ended, halted]);
    const runId = journal === undefined ? {} : { runId: journal.runId };
    if (outcome === "paused") {
      const { context } = actor.getSnapshot();
      actor.stop();
      const { steps, tokens } = context;
      const messages = [...messagesOf(context.transcript)];
      const pending = pendingApprovals(context);
      return {
        status: "awaiting_approval",
        answer: null,
        steps,
        tokens,
        messages,
        pendingApprovals: pending,
        ...runId,
      };
    }
    const { status, answer, steps, tokens } = outcome;
    await journal?.commit({ type: "run.finished", outcome: { status, answer, steps, tokens } });
    return { ...outcome, ...runId };
  } finally {
    signal?.removeEventListener("abort", cancel);
    stopEffects();
    actor.stop();
  }
}

/** Ends the run as cancelled; with a journal the cancellation is logged first. Rejects if the store cannot log it. */
async function cancelRun(actor: AgentActor, journal: Journal | undefined, reason: unknown): Promise<void> {
  const event =
    reason instanceof Error
      ? { type: "run.cancelled" as const, reason: reason.message }
      : { type: "run.cancelled" as const };
  if (journal === undefined) {
    actor.send(event);
    return;
  }
  await journal.commit(
    event,
    () => actor.send(event),
    () => actor.getSnapshot().status === "active",
  );
}

/** Checks the run-time limits of the effects; throws a `RangeError` for values that make no sense. */
export function checkEffectLimits({
  toolTimeoutMs,
  maxResultChars,
}: Pick<RunOptions, "toolTimeoutMs" | "maxResultChars">): void {
  if (toolTimeoutMs !== undefined && !isTimeout(toolTimeoutMs)) {
    throw new RangeError(
      `toolTimeoutMs must be milliseconds above 0 and at most ${MAX_TIMER_MS}, or Infinity; got ${toolTimeoutMs}`,
    );
  }
  if (maxResultChars !== undefined && !isCharLimit(maxResultChars)) {
    throw new RangeError(`maxResultChars must be a whole number above 0, or Infinity; got ${maxResultChars}`);
  }
}
