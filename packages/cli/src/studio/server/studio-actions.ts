import { messageOf } from "../../cli-error.js";
import {
  type AgentStreamEvent,
  continueAgent,
  type Decisions,
  forkRun,
  type ModelReply,
  type Principal,
  type RepairableStore,
  resumeAgent,
  runAgent,
  type StoredEvent,
} from "../../core-api.js";
import type { Io } from "../../io.js";
import { chooseModel } from "../../setup/choose-model.js";
import { newRunId } from "../../setup/run-ids.js";
import { CLI_RUN_DEFAULTS } from "../../setup/run-options.js";
import type { ToolSources } from "../../setup/tool-sources.js";

/** What the studio was given to act with: the store, and (when started with them) the tools and the model flags. */
export interface ActionSetup {
  readonly store: RepairableStore;
  readonly sources: ToolSources | null;
  readonly model: { readonly model?: string | undefined; readonly script?: string | undefined };
  readonly io: Io;
}

/** A request the studio refuses, with the HTTP status that says why. */
export class ActionError extends Error {
  override readonly name = "ActionError";
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/**
 * What the page can do to runs. Resuming, starting and continuing a run need the tools and the
 * model the studio was started with (the flags of `agentloop run`); forking needs only the store.
 * A run goes on in the background; the page follows it through the store like any other run.
 */
export class StudioActions {
  readonly #setup: ActionSetup;
  /** The runs this studio drives, each with its drive, which ends a little after the run's last event is logged. */
  readonly #busy = new Map<string, Promise<unknown>>();
  /** The last failure of a run the studio drove, by run id, for the page. */
  readonly failures = new Map<string, string>();
  /** Hear the text the model streams in the runs the studio drives, as it comes. */
  readonly deltas = new Set<(runId: string, text: string) => void>();
  /** Hear that a run the studio drives failed (its page shows why), though its log may not have changed. */
  readonly failed = new Set<(runId: string) => void>();

  constructor(setup: ActionSetup) {
    this.#setup = setup;
  }

  /** The store the studio watches and writes to. */
  get store(): RepairableStore {
    return this.#setup.store;
  }

  /** Whether runs can be driven (tools were given). */
  get canDrive(): boolean {
    return this.#setup.sources !== null;
  }

  /** Whether a model (or script) was given, for new runs and new messages. */
  get hasModel(): boolean {
    return this.#setup.model.model !== undefined || this.#setup.model.script !== undefined;
  }

  /** Resumes a paused run with decisions; resolves once it is under way. */
  async decide(runId: string, decisions: Decisions, events: readonly StoredEvent[]): Promise<void> {
    const registry = this.#registry();
    const model = await this.#model(events, "failWhenCalled");
    await this.#atRest(runId);
    void this.#drive(runId, (onEvent) =>
      resumeAgent(runId, model, registry, { store: this.#setup.store, decisions, onEvent }),
    );
  }

  /**
   * Resumes a run paused on questions with `answers`; resolves once it is under way (its first
   * event is logged). An answer the run refuses (one that does not fit its question's shape) is
   * refused here, in one line, and nothing is logged.
   */
  async answer(
    runId: string,
    answers: Readonly<Record<string, unknown>>,
    events: readonly StoredEvent[],
  ): Promise<void> {
    const registry = this.#registry();
    const model = await this.#model(events, "failWhenCalled");
    await this.#atRest(runId);
    let started: () => void = () => {};
    const underWay = new Promise<void>((resolve) => {
      started = resolve;
    });
    const run = this.#drive(runId, (onEvent) =>
      resumeAgent(runId, model, registry, {
        store: this.#setup.store,
        answers,
        onEvent: (event) => {
          started();
          onEvent(event);
        },
      }),
    );
    const refused = await Promise.race([underWay.then(() => null), run]);
    if (refused !== null) throw new ActionError(400, refused);
  }

  /** Starts a new run of `task` (the `owner`'s, when given); resolves with its id once it is under way. */
  async start(task: string, owner?: Principal): Promise<string> {
    const registry = this.#registry();
    const model = await this.#model([], "refuse");
    const runId = newRunId("run");
    const options = { ...CLI_RUN_DEFAULTS, store: this.#setup.store, runId, ...(owner === undefined ? {} : { owner }) };
    void this.#drive(runId, (onEvent) => runAgent(task, model, registry, { ...options, onEvent }));
    return runId;
  }

  /** Takes a finished run further with the user's next message. */
  async chat(runId: string, message: string, events: readonly StoredEvent[]): Promise<void> {
    const registry = this.#registry();
    const model = await this.#model(events, "refuse");
    await this.#atRest(runId);
    void this.#drive(runId, (onEvent) =>
      continueAgent(runId, message, model, registry, { store: this.#setup.store, onEvent }),
    );
  }

  /** A new run from the first `keep` events of `runId`; resolves with its id. */
  async fork(runId: string, keep: number): Promise<string> {
    return forkRun(this.#setup.store, runId, { runId: newRunId("fork"), keep }).catch((error: unknown) => {
      throw new ActionError(409, messageOf(error));
    });
  }

  #registry() {
    if (this.#setup.sources === null) {
      throw new ActionError(409, "start the studio with the run's tools (--tools, --mcp, --mcp-url) to drive runs");
    }
    return this.#setup.sources.registry;
  }

  async #model(events: readonly StoredEvent[], fallback: "refuse" | "failWhenCalled") {
    const logged = events.flatMap((event) => (event.type === "model.replied" ? [event.reply as ModelReply] : []));
    return chooseModel(this.#setup.model, this.#setup.io, "studio", fallback, logged).catch((error: unknown) => {
      throw new ActionError(409, messageOf(error));
    });
  }

  /**
   * Waits for this studio's drive of `runId`, if one is still closing, to end. Its caller saw in the
   * log that the run is at rest (paused or finished), so the drive has only its last writes and its
   * lock to release: a person who answers the moment the page shows the run at rest is not refused.
   */
  async #atRest(runId: string): Promise<void> {
    await this.#busy.get(runId);
  }

  /** Drives a run in the background; resolves with its failure's message when it fails, else with `null` once it is over. */
  #drive(runId: string, go: (onEvent: (event: AgentStreamEvent) => void) => Promise<unknown>): Promise<string | null> {
    if (this.#busy.has(runId)) throw new ActionError(409, `run '${runId}' is already going on from this studio`);
    this.failures.delete(runId);
    const onEvent = (event: AgentStreamEvent) => {
      // A child run's text goes to the child's page.
      const to = event.origin === undefined ? runId : (event.origin.runId ?? runId);
      if (event.type === "text-delta" && (to !== runId || event.origin === undefined)) {
        for (const listener of this.deltas) listener(to, event.text);
      }
    };
    const drive = go(onEvent)
      .then(() => null)
      .catch((error: unknown) => {
        this.failures.set(runId, messageOf(error));
        for (const listener of this.failed) listener(runId);
        return messageOf(error);
      })
      .finally(() => this.#busy.delete(runId));
    this.#busy.set(runId, drive);
    return drive;
  }
}
