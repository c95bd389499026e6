import type { AgentInput } from "./agent-context.js";
import { canonicalJson } from "./call-key.js";
import { EventLogError } from "./errors.js";
import { EVENT_LOG_SCHEMA_VERSION, type RunSettings, type StoredEvent } from "./event-log.js";
import type { EventStore } from "./event-store.js";
import { Journal } from "./journal.js";
import { foldEvents, replayRun } from "./replay.js";
import { checkEffectLimits, type RunOptions, runLive } from "./run-agent.js";
import type { ToolRegistry } from "./tool-registry.js";
import type { AgentResult, Decision, Model } from "./types.js";

/** Options of `resumeAgent`: the store, decisions for calls that wait for one, and the run-time safeguards. */
export interface ResumeOptions
  extends Pick<RunOptions, "approve" | "toolTimeoutMs" | "maxResultChars" | "signal" | "inspect"> {
  readonly store: EventStore;
  /** Decisions by call id, for a run paused with `awaiting_approval`; asked before `approve`. */
  readonly decisions?: Readonly<Record<string, Decision>>;
}

/**
 * Continues a run from its log: the machine starts from the state the log replays to. No logged
 * model reply is asked for again and no tool whose result is logged runs again; a tool the process
 * died in runs again only if it is registered as idempotent, otherwise the model is told its result
 * was lost. A finished run is not extended: its result comes back as it was. Throws `EventLogError` for an unknown run, a log that does not fit,
 * or tools that differ from the registry's.
 */
export async function resumeAgent(
  runId: string,
  model: Model,
  registry: ToolRegistry,
  options: ResumeOptions,
): Promise<AgentResult> {
  // One writer per run: the log is read under the lock, so its position cannot move until release.
  const lock = await options.store.acquire?.(runId);
  try {
    return await resumeHeld(runId, model, registry, options);
  } finally {
    await lock?.release();
  }
}

async function resumeHeld(
  runId: string,
  model: Model,
  registry: ToolRegistry,
  options: ResumeOptions,
): Promise<AgentResult> {
  const { store, decisions = {}, approve, signal, inspect, ...limits } = options;
  checkEffectLimits(limits);
  const events = await store.read(runId);
  const settings = startOf(runId, events).settings;
  checkTools(runId, settings, registry);
  const replay = replayRun(events, { runId });
  const journal = new Journal(store, runId, events);
  if (replay.result !== null) {
    const { status, answer, steps, tokens } = replay.result;
    // A crash between the machine's end and the log's: the end is known, so it is logged now.
    if (events.at(-1)?.type !== "run.finished")
      await journal.commit({ type: "run.finished", outcome: { status, answer, steps, tokens } });
    return { ...replay.result, runId };
  }
  const input: AgentInput = {
    ...limits,
    task: settings.task,
    settings,
    model,
    registry,
    journal,
    approve: (call) => (Object.hasOwn(decisions, call.id) ? decisions[call.id] : approve?.(call)),
  };
  // The machine goes on from its replayed state: nothing logged is asked for or run again. A log
  // that ends with a tool.started ends inside that call's run (replay checked it is the running call).
  const from = { snapshot: replay.snapshot, interrupted: events.at(-1)?.type === "tool.started" };
  return runLive(input, { signal, inspect, from });
}

/** Where a fork starts and what it changes. */
export interface ForkOptions {
  /** Events of the original to keep, counting `run.started` (default: all but `run.finished`). */
  readonly keep?: number;
  /** The new run's id; a random UUID when not given. */
  readonly runId?: string;
  readonly maxSteps?: number;
  readonly tokenBudget?: number;
}

/**
 * Starts a new run from a prefix of another's log, with other limits if asked (say, a larger
 * budget), and returns its id; resume it to go on. The original log is left untouched. Events the
 * new limits would never reach (a smaller budget ends it sooner) are not copied.
 */
export async function forkRun(store: EventStore, runId: string, options: ForkOptions = {}): Promise<string> {
  const forkId = options.runId ?? globalThis.crypto.randomUUID();
  const lock = await store.acquire?.(forkId);
  try {
    return await copyPrefix(store, runId, forkId, options);
  } finally {
    await lock?.release();
  }
}

async function copyPrefix(store: EventStore, runId: string, forkId: string, options: ForkOptions): Promise<string> {
  const events = await store.read(runId);
  const started = startOf(runId, events);
  const settings: RunSettings = {
    ...started.settings,
    maxSteps: options.maxSteps ?? started.settings.maxSteps,
    tokenBudget: options.tokenBudget ?? started.settings.tokenBudget,
  };
  const prefix = events.slice(0, options.keep ?? events.length).filter((event) => event.type !== "run.finished");
  const { consumed: reached } = foldEvents(prefix, { runId, settings });
  // A fork that ends inside a call would report it lost: it starts before the call instead.
  const consumed = prefix[reached - 1]?.type === "tool.started" ? reached - 1 : reached;
  const journal = new Journal(store, forkId);
  const forkedFrom = { runId, seq: consumed };
  await journal.commit({ type: "run.started", schemaVersion: EVENT_LOG_SCHEMA_VERSION, settings, forkedFrom });
  for (const { seq: _seq, at: _at, ...event } of prefix.slice(1, consumed)) await journal.commit(event);
  return forkId;
}

function startOf(runId: string, events: readonly StoredEvent[]): Extract<StoredEvent, { type: "run.started" }> {
  const [started] = events;
  if (started?.type !== "run.started") {
    throw new EventLogError(`run '${runId}' has no log in this store`, { runId, position: 0 });
  }
  return started;
}

function checkTools(runId: string, settings: RunSettings, registry: ToolRegistry): void {
  const logged = canonicalJson([settings.tools, settings.approvalRequired ?? []]);
  const current = canonicalJson([registry.specs(), registry.approvalRequired()]);
  if (logged === current) return;
  throw new EventLogError(
    `run '${runId}' was started with other tools than this registry has (specs and approval flags): the log has ${logged}, the registry has ${current}`,
    { runId, position: 0 },
  );
}
