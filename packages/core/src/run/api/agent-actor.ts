import type { ActorLogic, AnyActorRef, StateValue } from "xstate";
import type { AgentEvent, AgentResult, Decision, PendingQuestion, ToolCall } from "../../data/index.js";
import { type AgentInputData, reviveData, splitInput } from "../../data/index.js";
import { type AgentSnapshot, type AgentView, agentMachine, isNewView, viewOf } from "../../decide/index.js";
import type { ToolRegistry } from "../../tools/index.js";
import type { ModelWithLimits } from "../options/index.js";
import { checkActorOptions } from "./agent-actor-options.js";
import { DetachableStore, startOrContinue } from "./agent-actor-run.js";
import { AnswerDesk } from "./answer-desk.js";
import { ApprovalDesk } from "./approval-desk.js";
import type { RunOptions } from "./run-agent.js";

/** What `agentActor` runs: a task, its model and tools, and any option of `runAgent` but the signal. */
export interface AgentActorInput extends Omit<RunOptions, "signal" | "ceiling"> {
  readonly task: string;
  readonly model: ModelWithLimits;
  readonly registry: ToolRegistry;
}

/** The code an actor made by `createAgentActor` is given, so that one restored from a persisted snapshot has it again; the input's own wins. */
export type AgentActorProvided = Partial<
  Pick<AgentActorInput, "model" | "registry" | "store" | "approve" | "inspect" | "onEvent">
>;

/** The input of an actor made by `createAgentActor`: the model and the registry may come from there. */
export type AgentTaskInput = Omit<AgentActorInput, "model" | "registry"> &
  Partial<Pick<AgentActorInput, "model" | "registry">>;

/**
 * The agent actor's snapshot: its status and, once it ends, its `AgentResult` (`output`) or its
 * error; the agent machine's state `value` (`null` until the run is up); the `context` a parent
 * sees (run id, steps, tokens, calls waiting for a decision, questions waiting for an answer); and
 * the data of its input.
 */
export type AgentActorSnapshot = (
  | { readonly status: "active"; readonly output: undefined; readonly error: undefined }
  | { readonly status: "done"; readonly output: AgentResult; readonly error: undefined }
  | { readonly status: "error"; readonly output: undefined; readonly error: unknown }
  | { readonly status: "stopped"; readonly output: undefined; readonly error: undefined }
) & {
  readonly value: StateValue | null;
  readonly context: AgentView;
  /** The input's data; its code (model, registry, store, functions) is not kept. */
  readonly input: AgentInputData;
};

/**
 * What a parent sends the agent actor: decisions by call id for the calls that wait for one;
 * answers by call id for the questions that wait for one (each checked against its question's
 * shape: one that does not fit is refused with `agent.answerRefused`, and the question waits on);
 * a pause (what waits stays undecided and unanswered, and the run ends `awaiting_approval` or
 * `awaiting_input`); or a cancel (the run ends `cancelled`). The machine's own events, which the actor sends itself to show each step,
 * are ignored when anyone else sends them.
 */
export type AgentActorEvent =
  | { readonly type: "agent.decide"; readonly decisions: Readonly<Record<string, Decision>> }
  | { readonly type: "agent.answer"; readonly answers: Readonly<Record<string, unknown>> }
  | { readonly type: "agent.pause" }
  | { readonly type: "agent.cancel"; readonly reason?: string }
  | AgentEvent
  | { readonly type: "agent.started" }
  | { readonly type: "agent.ended"; readonly output: AgentResult }
  | { readonly type: "agent.failed"; readonly error: unknown };

/**
 * What the agent actor sends its parent: its state on each change, the calls that wait for the
 * parent's decision, the questions that wait for its answer, and an answer refused (one sentence).
 */
export type AgentParentEvent =
  | ({ readonly type: "agent.state"; readonly id: string; readonly value: StateValue } & AgentView)
  | {
      readonly type: "agent.approvalRequested";
      readonly id: string;
      readonly runId: string | null;
      readonly calls: readonly ToolCall[];
    }
  | {
      readonly type: "agent.inputRequested";
      readonly id: string;
      readonly runId: string | null;
      readonly questions: readonly PendingQuestion[];
    }
  | {
      readonly type: "agent.answerRefused";
      readonly id: string;
      readonly runId: string | null;
      readonly callId: string;
      readonly problem: string;
    };

/** The logic of an agent actor, taking input `TInput`. */
export type AgentActorLogic<TInput> = ActorLogic<AgentActorSnapshot, AgentActorEvent, TInput>;

/** A running actor's live parts: the abort of its run, the calls and questions waiting for the parent, its store. */
interface Instance {
  readonly controller: AbortController;
  readonly desk: ApprovalDesk;
  readonly questions: AnswerDesk | undefined;
  readonly store: DetachableStore | undefined;
  readonly ended: Promise<AgentResult>;
}

const instances = new WeakMap<AnyActorRef, Instance>();
/**
 * The input's code, kept on the snapshot under a symbol: a workflow restored in the same process
 * from `getPersistedSnapshot()` has it still, and JSON leaves it out (a restore from JSON takes it
 * from `createAgentActor`).
 */
const CODE = Symbol("agentActor.code");
type WithCode = { readonly [CODE]?: Readonly<Record<string, unknown>> };
/** The events the actor sent itself, with the view each one brings: no one else's event changes the snapshot. */
const own = new WeakMap<object, { value: StateValue; context: AgentView } | null>();

/**
 * Makes agent actors whose model, registry, store and other code come from `provided` (an input's
 * own value wins): an actor restored from a persisted snapshot, which keeps only data, gets them
 * from here. Otherwise as `agentActor`.
 */
export function createAgentActor(provided: AgentActorProvided): AgentActorLogic<AgentTaskInput> {
  checkActorOptions(provided, true);
  return agentLogic<AgentTaskInput>(provided);
}

/**
 * A whole run as an actor, to invoke from a larger workflow. Its snapshot shows the agent machine's
 * state value, steps, tokens and waiting calls, and the parent hears `agent.state` on each change;
 * a call that needs approval (and that the input's `approve` leaves undecided) is sent to the
 * parent as `agent.approvalRequested` and waits for its `agent.decide`, and a question of an
 * `askUserTool` is sent as `agent.inputRequested` and waits for its `agent.answer`. Its output is the
 * `AgentResult` (each status can be a transition of the parent's own), a failure (the model's
 * `ModelError`) is the parent's `onError`, and the parent leaving the invoking state cancels the
 * run. With a `store`, a parent restored from a persisted snapshot continues the same run from its
 * log, and a parent stopped as a whole leaves the log as it is, to be continued.
 */
export const agentActor: AgentActorLogic<AgentActorInput> = agentLogic<AgentActorInput>({});

function agentLogic<TInput extends AgentTaskInput>(provided: AgentActorProvided): AgentActorLogic<TInput> {
  return {
    // The inspector shows the actor with the agent machine's chart, lit by the snapshots' `value`.
    config: agentMachine.config,
    getInitialSnapshot: (_, input) => {
      // Thrown here, the actor starts in its error state: an invoking parent's onError hears it.
      checkActorOptions(input);
      const whole: AgentActorProvided & AgentTaskInput = { ...provided, ...input };
      const runId = whole.store === undefined ? null : (whole.runId ?? globalThis.crypto.randomUUID());
      const context = { runId, steps: 0, tokens: 0, pendingApprovals: [], pendingQuestions: [] };
      const { data, code } = splitInput(whole);
      const snapshot: AgentActorSnapshot & WithCode = {
        ...{ status: "active", output: undefined, error: undefined, value: null, context, input: data },
        [CODE]: code,
      };
      return snapshot;
    },
    transition,
    start: (snapshot, { self }) => {
      if (snapshot.status !== "active") return;
      const code = (snapshot as AgentActorSnapshot & WithCode)[CODE];
      const input = { ...provided, ...code, ...(reviveData(snapshot.input) as AgentTaskInput) };
      // Without its code, the snapshot was restored from JSON.
      start(self, snapshot, input, code === undefined);
    },
    getPersistedSnapshot: (snapshot) => snapshot,
    restoreSnapshot: (snapshot) => snapshot as AgentActorSnapshot,
  };
}

function transition(
  snapshot: AgentActorSnapshot,
  event: AgentActorEvent,
  { self }: { self: AnyActorRef },
): AgentActorSnapshot {
  if (snapshot.status !== "active") return snapshot;
  const instance = instances.get(self);
  if (own.has(event)) {
    if (event.type === "agent.ended") return { ...snapshot, status: "done", output: event.output, error: undefined };
    if (event.type === "agent.failed") return { ...snapshot, status: "error", output: undefined, error: event.error };
    return { ...snapshot, ...own.get(event) };
  }
  const type: string = event.type;
  if (type === "xstate.stop") {
    if (instance !== undefined) stop(self, instance);
    return { ...snapshot, status: "stopped", output: undefined, error: undefined };
  }
  switch (event.type) {
    case "agent.decide":
      instance?.desk.decide(event.decisions);
      break;
    case "agent.answer":
      instance?.questions?.answer(event.answers);
      break;
    case "agent.pause":
      instance?.desk.pause();
      instance?.questions?.pause();
      break;
    case "agent.cancel":
      instance?.controller.abort(new Error(event.reason ?? "the workflow cancelled the run"));
      break;
  }
  return snapshot;
}

/** Starts or continues the run, and shows each of its steps to the parent. */
function start(
  self: AnyActorRef,
  snapshot: AgentActorSnapshot,
  input: AgentActorProvided & AgentTaskInput,
  restored: boolean,
): void {
  const { runId } = snapshot.context;
  const announce = (calls: readonly ToolCall[]) => {
    if (self.getSnapshot().status === "active") {
      self._parent?.send({ type: "agent.approvalRequested", id: self.id, runId, calls });
    }
  };
  const desk = new ApprovalDesk(announce);
  const tell = (event: AgentParentEvent) => {
    if (self.getSnapshot().status === "active") self._parent?.send(event);
  };
  const questions =
    input.registry === undefined
      ? undefined
      : new AnswerDesk(
          input.registry,
          (asked) => tell({ type: "agent.inputRequested", id: self.id, runId, questions: asked }),
          (callId, problem) => tell({ type: "agent.answerRefused", id: self.id, runId, callId, problem }),
        );
  const store = input.store === undefined || runId === null ? undefined : new DetachableStore(input.store, runId);
  const controller = new AbortController();
  const onSnapshot = (inner: AgentSnapshot, event: { readonly type: string }) => {
    const current = self.getSnapshot() as AgentActorSnapshot;
    // The driver stops the machine once the run returns: that last snapshot shows nothing new.
    if (current.status !== "active" || inner.status === "stopped") return;
    const view = viewOf(inner, runId);
    const relay = event.type === "xstate.init" ? { type: "agent.started" } : event;
    own.set(relay, view);
    self.send(relay);
    if (isNewView(current, view))
      self._parent?.send({ type: "agent.state", id: self.id, value: view.value, ...view.context });
  };
  const answers = questions?.port ?? (() => undefined);
  const added = { store, approve: desk.approver(input.approve), answers, signal: controller.signal, onSnapshot };
  // After the start: the run's first snapshot is sent to a parent that may still be starting itself.
  const ended = Promise.resolve().then(() => run(input, snapshot, added, restored));
  instances.set(self, { controller, desk, questions, store, ended });
  ended.then(
    (output) => settle(self, { type: "agent.ended", output }),
    (error: unknown) => settle(self, { type: "agent.failed", error }),
  );
}

async function run(
  input: AgentActorProvided & AgentTaskInput,
  snapshot: AgentActorSnapshot,
  added: Pick<Parameters<typeof startOrContinue>[0], "store" | "approve" | "answers" | "signal" | "onSnapshot">,
  restored: boolean,
): Promise<AgentResult> {
  const { model, registry, store: _store, runId: _runId, approve: _approve, ...options } = input;
  const { runId } = snapshot.context;
  const missing = [model === undefined ? "a model" : "", registry === undefined ? "a registry" : ""].filter(Boolean);
  if (model === undefined || registry === undefined) {
    const how = restored ? "restored from a persisted snapshot" : "started";
    throw new TypeError(
      `agentActor was ${how} without ${missing.join(" and ")}: give them in its input, or to createAgentActor({ model, registry, store }), where a restored actor finds them`,
    );
  }
  if (runId !== null && added.store === undefined) {
    throw new TypeError(
      `agentActor of run '${runId}' was restored from a persisted snapshot without its store: give it to createAgentActor({ store }), so that the run goes on from its log`,
    );
  }
  return startOrContinue({ ...options, ...added, model, registry, runId });
}

function settle(self: AnyActorRef, event: Extract<AgentActorEvent, { type: "agent.ended" | "agent.failed" }>): void {
  if (self.getSnapshot().status !== "active") return;
  own.set(event, null);
  self.send(event);
}

/**
 * The actor is stopped. When the parent left the invoking state, the run is cancelled (and
 * logged so). When the whole workflow was stopped (its root stops, as after persisting it), a
 * run with a store is left where its log stands, as if the process had ended: the restored
 * workflow continues it. The actor's own parent is already stopped in that case: XState stops
 * children after the parent's snapshot is updated.
 */
function stop(self: AnyActorRef, instance: Instance): void {
  const parent = self._parent;
  const wholeWorkflow = parent === undefined || parent.getSnapshot().status === "stopped";
  if (wholeWorkflow && instance.store !== undefined) instance.store.detach(instance.ended);
  instance.controller.abort(new Error("the workflow left the state that runs the agent"));
  instance.desk.pause();
  instance.questions?.pause();
}
