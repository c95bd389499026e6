import type { InspectionEvent } from "xstate";
import type { AgentResult } from "../../data/index.js";
import type { AgentSnapshot } from "../../decide/index.js";
import type { EventStore, RunLock } from "../../log/index.js";
import { EventLogError } from "../../log/index.js";
import type { ToolRegistry } from "../../tools/index.js";
import type { Approver } from "../loop/index.js";
import type { ModelWithLimits } from "../options/index.js";
import type { AnswerPort } from "../performers/index.js";
import { resumeWith } from "./resume.js";
import { resumableOptions } from "./resume-options.js";
import { type RunOptions, startRun } from "./run-agent.js";

/** Everything an embedded run is started with: the actor's input and what the actor adds. */
export interface EmbeddedRun extends Omit<RunOptions, "signal" | "approve" | "runId" | "store"> {
  readonly task: string;
  readonly model: ModelWithLimits;
  readonly registry: ToolRegistry;
  readonly runId: string | null;
  readonly store: DetachableStore | undefined;
  readonly approve: Approver;
  /** Asks the parent the run's questions. */
  readonly answers: AnswerPort;
  readonly signal: AbortSignal;
  /** Hears each snapshot of the run's machine, with the event that led to it. */
  readonly onSnapshot: (snapshot: AgentSnapshot, event: { readonly type: string }) => void;
}

/** Per store, the runs whose actor was stopped with its parent and whose work is still winding down. */
const detaching = new WeakMap<EventStore, Map<string, Promise<unknown>>>();

/**
 * Starts the run, or continues it when its log already exists in the store (the actor was
 * restored): a finished run gives its logged result, a paused one waits for its decisions and
 * answers again, and an unfinished one goes on as `resumeAgent` resumes it. Resolves to the run's result.
 */
export async function startOrContinue(run: EmbeddedRun): Promise<AgentResult> {
  const { task, model, registry, runId, onSnapshot, store, answers, ...options } = run;
  const inspect = (event: InspectionEvent) => {
    const given = run.inspect;
    if (typeof given === "function") given(event);
    else given?.next?.(event);
    // The machine runs in a system of its own, with no child: its snapshots are those of its root.
    if (event.type === "@xstate.snapshot" && event.rootId === event.actorRef.sessionId) {
      onSnapshot(event.snapshot as AgentSnapshot, event.event);
    }
  };
  if (store === undefined || runId === null) return startRun(task, model, registry, { ...options, inspect, answers });
  await detaching.get(store.store)?.get(runId);
  const started = (await store.read(runId)).length > 0;
  if (!started) return startRun(task, model, registry, { ...options, store, runId, inspect, answers });
  // The log holds the run's limits and policies: the resume takes the rest.
  return resumeWith(runId, model, registry, { ...resumableOptions(options), store, inspect }, answers);
}

/**
 * The store as the run writes to it, until `detach`: from then on nothing more is appended, so
 * that the log stays as it was when the actor was stopped with its parent — as if the process had
 * ended there — ready for the restored actor to continue.
 */
export class DetachableStore implements EventStore {
  #attached = true;
  /** The store's lock, when it has one: an optional method, as in `EventStore`, so strict apps see no `| undefined`. */
  acquire?(runId: string): Promise<RunLock>;

  constructor(
    readonly store: EventStore,
    readonly runId: string,
  ) {
    const { acquire } = store;
    if (acquire !== undefined) this.acquire = (id) => acquire.call(store, id);
  }

  append(runId: string, event: Parameters<EventStore["append"]>[1]): Promise<void> {
    if (this.#attached) return this.store.append(runId, event);
    return Promise.reject(
      new EventLogError(
        `run '${runId}': its actor was stopped with its parent; the log goes on when the parent is restored`,
        {
          runId,
          position: event.seq,
        },
      ),
    );
  }

  read(runId: string): ReturnType<EventStore["read"]> {
    return this.store.read(runId);
  }

  list(): ReturnType<EventStore["list"]> {
    return this.store.list();
  }

  /** Stops appending; a restored actor of the same run in this process waits for `ended` before it reads the log. */
  detach(ended: Promise<unknown>): void {
    this.#attached = false;
    const runs = detaching.get(this.store) ?? new Map<string, Promise<unknown>>();
    detaching.set(this.store, runs);
    const settled = ended.then(
      () => {},
      () => {},
    );
    runs.set(this.runId, settled);
    void settled.then(() => {
      if (runs.get(this.runId) === settled) runs.delete(this.runId);
    });
  }
}
