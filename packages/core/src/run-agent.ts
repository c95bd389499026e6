import { createActor, toPromise } from "xstate";
import { type AgentInput, type AgentOptions, resolveSettings } from "./agent-context.js";
import { agentMachine } from "./agent-machine.js";
import { EventLogError } from "./errors.js";
import { EVENT_LOG_SCHEMA_VERSION } from "./event-log.js";
import type { EventStore } from "./event-store.js";
import { Journal } from "./journal.js";
import type { ToolRegistry } from "./tool-registry.js";
import type { AgentResult, Model } from "./types.js";

/** Options of `runAgent`: the limits, and where to keep the run's event log. */
export interface RunOptions extends AgentOptions {
  /** Keeps the run's events there, so that it can be replayed, forked and resumed. */
  readonly store?: EventStore;
  /** The run's id in the store (letters, digits, `_`, `-`, `.`); a random UUID when not given. */
  readonly runId?: string;
}

/**
 * Runs `task` to an exit: a final answer (`done`), `maxSteps` model calls (`step_limit`), or a
 * prompt that would overspend `tokenBudget` (`token_budget`), always with the whole message list.
 * With a `store`, every event is logged before the machine sees it and the result carries the
 * `runId`. Rejects with `ModelError` when the model fails (the log stays resumable), and with a
 * `RangeError` for impossible limits.
 */
export async function runAgent(
  task: string,
  model: Model,
  registry: ToolRegistry,
  options: RunOptions = {},
): Promise<AgentResult> {
  const { store, runId: wantedId, ...limits } = options;
  const input: AgentInput = { ...limits, task, model, registry };
  if (store === undefined) return runMachine(input);
  const settings = resolveSettings(input);
  const runId = wantedId ?? globalThis.crypto.randomUUID();
  if ((await store.read(runId)).length > 0) {
    throw new EventLogError(`run '${runId}' already exists: resume it, or start a run with a new id`, {
      runId,
      position: 0,
    });
  }
  const journal = new Journal(store, runId);
  await journal.record({ type: "run.started", schemaVersion: EVENT_LOG_SCHEMA_VERSION, settings });
  return runLogged({ ...input, journal });
}

/** Runs a live machine with a journal to its end and logs `run.finished`. */
export async function runLogged(input: AgentInput & { journal: Journal }): Promise<AgentResult> {
  const result = await runMachine(input);
  const { status, answer, steps, tokens } = result;
  await input.journal.record({ type: "run.finished", outcome: { status, answer, steps, tokens } });
  return { ...result, runId: input.journal.runId };
}

function runMachine(input: AgentInput): Promise<AgentResult> {
  const actor = createActor(agentMachine, { input });
  const result = toPromise(actor);
  actor.start();
  return result;
}
