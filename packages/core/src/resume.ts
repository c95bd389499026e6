import type { AgentInput } from "./agent-context.js";
import { EventLogError } from "./errors.js";
import { EVENT_LOG_SCHEMA_VERSION, type RunSettings, type StoredEvent } from "./event-log.js";
import type { EventStore } from "./event-store.js";
import { Journal } from "./journal.js";
import { foldEvents, replayRun } from "./replay.js";
import { runLogged } from "./run-agent.js";
import type { ToolRegistry } from "./tool-registry.js";
import type { AgentResult, Model } from "./types.js";

/**
 * Continues a run from its log. No logged model reply is asked for again and no tool whose result
 * is logged runs again; a tool the process died in runs again only if it is registered as
 * idempotent, otherwise the model is told its result was lost. A finished run is not extended: its
 * result comes back as it was. Throws `EventLogError` for an unknown run, a log that does not fit,
 * or tool specs that differ from the registry's.
 */
export async function resumeAgent(
  runId: string,
  model: Model,
  registry: ToolRegistry,
  options: { readonly store: EventStore },
): Promise<AgentResult> {
  const events = await options.store.read(runId);
  const settings = startOf(runId, events).settings;
  checkSpecs(runId, settings, registry);
  const replay = replayRun(events, { runId });
  if (replay.result !== null) return { ...replay.result, runId };
  const { task, system, maxSteps, tokenBudget } = settings;
  const input: AgentInput = { task, system, maxSteps, tokenBudget, model, registry };
  return runLogged({ ...input, journal: new Journal(options.store, runId, events) });
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
  const events = await store.read(runId);
  const started = startOf(runId, events);
  const settings: RunSettings = {
    ...started.settings,
    maxSteps: options.maxSteps ?? started.settings.maxSteps,
    tokenBudget: options.tokenBudget ?? started.settings.tokenBudget,
  };
  const prefix = events.slice(0, options.keep ?? events.length).filter((event) => event.type !== "run.finished");
  const { consumed } = foldEvents(prefix, { runId, settings });
  const forkId = options.runId ?? globalThis.crypto.randomUUID();
  const journal = new Journal(store, forkId);
  await journal.record({
    type: "run.started",
    schemaVersion: EVENT_LOG_SCHEMA_VERSION,
    settings,
    forkedFrom: { runId, seq: consumed },
  });
  for (const { seq: _seq, at: _at, ...event } of prefix.slice(1, consumed)) await journal.record(event);
  return forkId;
}

function startOf(runId: string, events: readonly StoredEvent[]): Extract<StoredEvent, { type: "run.started" }> {
  const [started] = events;
  if (started?.type !== "run.started") {
    throw new EventLogError(`run '${runId}' has no log in this store`, { runId, position: 0 });
  }
  return started;
}

function checkSpecs(runId: string, settings: RunSettings, registry: ToolRegistry): void {
  const logged = JSON.stringify(settings.tools);
  const current = JSON.stringify(registry.specs());
  if (logged === current) return;
  throw new EventLogError(
    `run '${runId}' was started with other tools than this registry has: the model saw ${logged}, the registry has ${current}`,
    { runId, position: 0 },
  );
}
