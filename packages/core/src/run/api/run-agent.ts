import { createActor, type InspectionEvent, type Observer } from "xstate";
import type { AgentResult, Decision, MemoryStore, MessageContent, Principal } from "../../data/index.js";
import {
  EVENT_LOG_SCHEMA_VERSION,
  isPrincipal,
  messagesOf,
  type RunEvent,
  type RunSettings,
  type StoredEvent,
} from "../../data/index.js";
import type { AgentContext, AgentMachineInput } from "../../decide/index.js";
import {
  agentMachine,
  canonicalJson,
  childPending,
  childQuestions,
  pendingApprovals,
  pendingQuestions,
  pendingRequests,
} from "../../decide/index.js";
import { EventLogError, type EventStore, holding, Journal, outcomeOf } from "../../log/index.js";
import type { ToolRegistry, ToolSchema } from "../../tools/index.js";
import { isCharLimit, isTimeout, MAX_TIMER_MS } from "../../tools/index.js";
import { ChildCalls, childToolOf, hasChildTools, treeListing, treeQuestionListing } from "../children/index.js";
import type { AgentStreamEvent, Resumption } from "../loop/index.js";
import { drivenMachine, type EffectPorts, RunLoop } from "../loop/index.js";
import {
  type AgentOptions,
  costBudgetRefusal,
  describe,
  type ModelWithLimits,
  resolveSettings,
} from "../options/index.js";
import {
  checkCeiling,
  NO_CHECKS,
  type OutputOf,
  type RunAgent,
  resolveTurn,
  runAgents,
  type TurnOptions,
} from "../performers/index.js";

/** Options of `runAgent`: limits and policies, safeguards, where to keep the run's event log, and who listens. */
export interface RunOptions<Output extends ToolSchema = ToolSchema>
  extends AgentOptions,
    TurnOptions<Output>,
    Pick<EffectPorts, "approve" | "toolTimeoutMs" | "maxResultChars" | "ceiling"> {
  /** Keeps the run's events there, so that it can be replayed, forked, resumed and continued. */
  readonly store?: EventStore;
  /** The run's id in the store (letters, digits, `_`, `-`, `.`); a random UUID when not given. */
  readonly runId?: string;
  /** Whose run it is (a served request's principal): logged in `run.started` as `owner`, inside the hash chain. */
  readonly owner?: Principal;
  /** Aborting it stops the model call and the tools in flight and ends the run with `cancelled`. */
  readonly signal?: AbortSignal;
  /**
   * Handed to the actor: receives XState's inspection events (the machine definition, every event,
   * microstep and snapshot), e.g. `createBrowserInspector().inspect` from `@statelyai/inspect`.
   */
  readonly inspect?: Observer<InspectionEvent> | ((event: InspectionEvent) => void);
  /**
   * Hears the run as it goes: steps, the model's deltas as they stream (a model that can stream is
   * asked to), tool calls and results, decisions, and the end (see `AgentStreamEvent`). Called
   * synchronously; if it throws, the run fails with that error.
   */
  readonly onEvent?: (event: AgentStreamEvent) => void;
  /**
   * Hears each event of the run's log once it is appended, as stored (`run.started` and
   * `run.finished` included): so a view can fold the very log the run writes. Only with a `store`;
   * called synchronously, and if it throws, the run fails with that error.
   */
  readonly onLogged?: (event: StoredEvent) => void;
}

/**
 * Runs `task` to an exit: a final answer (`done`), `maxSteps` model calls (`step_limit`), a prompt
 * that would overspend `tokenBudget` (`token_budget`), a refusal (`refused`), a repeated call
 * under the `stop` policy (`repeated_call`), an abort (`cancelled`), calls that wait for
 * decisions nobody gave (`awaiting_approval`, to be resumed), answers that never matched `output`
 * (`invalid_output`) or a guardrail that tripped (`guardrail_tripped`) — always with the whole
 * message list; with `output`, a `done` result's `output` is the checked answer, typed from the schema.
 * With a `store`, every event is logged before the machine sees it and the result carries the
 * `runId`. Rejects with `ModelError` when the model fails (the log stays resumable), and with a
 * `TypeError` or `RangeError` for options that make no sense, before anything is logged.
 */
export function runAgent<Output extends ToolSchema = never>(
  task: MessageContent,
  model: ModelWithLimits,
  registry: ToolRegistry,
  options: RunOptions<Output> = {},
): Promise<AgentResult<OutputOf<Output>>> {
  return typedResult<Output>(startRun(task, model, registry, options));
}

/**
 * A run's result typed from its `output` schema, for the entries that take one (`runAgent`,
 * `resumeAgent`, `continueAgent`): a `done` answer's value is checked against `output` before it is
 * logged, so its type is the schema's.
 */
export function typedResult<Output extends ToolSchema>(
  result: Promise<AgentResult>,
): Promise<AgentResult<OutputOf<Output>>> {
  return result as Promise<AgentResult<OutputOf<Output>>>;
}

/** Starts a run as `runAgent` does; a child run's `run.started` names its `parent` run and call. */
export async function startRun(
  task: MessageContent,
  model: ModelWithLimits,
  registry: ToolRegistry,
  options: RunOptions & Pick<EffectPorts, "answers">,
  parent?: { readonly runId: string; readonly callId: string },
): Promise<AgentResult> {
  checkRunOptions(options);
  const turn = resolveTurn(options);
  const resolved = resolveSettings(task, model, registry, options);
  // A run without checks logs the settings as resolved: no copy made for nothing to add.
  const settings = turn.checks === NO_CHECKS ? resolved : { ...resolved, ...turn.checks };
  checkChildPrices(settings, registry);
  const { store } = options;
  const ports = { ...portsOf(options, options.compaction?.summarizer), model, registry, checks: turn.ports };
  const link = parent === undefined ? {} : { parent };
  const owned = options.owner === undefined ? link : { ...link, owner: options.owner };
  // Without a store nothing is kept, but the listener hears the run's start as a stored run logs it.
  const begin: RunEvent = { type: "run.started", schemaVersion: EVENT_LOG_SCHEMA_VERSION, settings, ...owned };
  if (store === undefined) return runLive({ ...ports, settings, schemaVersion: EVENT_LOG_SCHEMA_VERSION, begin });
  // A run id names the run in its store: none is made for a run without one.
  const runId = options.runId ?? globalThis.crypto.randomUUID();
  // One writer per run: the run is held before it is looked for, and until it returns.
  return holding(store, runId, async () => {
    if ((await store.read(runId)).length > 0) {
      throw new EventLogError(`run '${runId}' already exists: resume it, or start a run with a new id`, {
        runId,
        position: 0,
      });
    }
    const journal = new Journal(store, runId, [], { onLogged: options.onLogged });
    return runLive({ ...ports, settings, schemaVersion: EVENT_LOG_SCHEMA_VERSION, journal, begin, store });
  });
}

/** The caller's options that drive a live run and are not logged: what `portsOf` takes, and a resume takes again. */
export type DrivingOptions = Pick<
  RunOptions,
  | "approve"
  | "toolTimeoutMs"
  | "maxResultChars"
  | "signal"
  | "inspect"
  | "onEvent"
  | "fallbackModels"
  | "prepareStep"
  | "ceiling"
>;

/**
 * The options a live run is driven with, taken from the caller's, and the model that writes its
 * summaries. (Taken as a second argument rather than spread into a copy of the caller's options:
 * that copy cost more than the rest of the run's setup together.)
 */
export function portsOf(
  options: DrivingOptions &
    Pick<EffectPorts, "answers"> & { readonly memory?: { readonly store?: MemoryStore } | undefined },
  summarizer?: EffectPorts["summarizer"],
): Omit<LiveRun, "settings" | "schemaVersion" | "model" | "registry"> {
  const { approve, toolTimeoutMs, maxResultChars, signal, inspect, onEvent, fallbackModels } = options;
  const { prepareStep, answers, ceiling } = options;
  return {
    memory: options.memory?.store,
    approve,
    toolTimeoutMs,
    maxResultChars,
    signal,
    inspect,
    onEvent,
    fallbackModels,
    summarizer,
    prepareStep,
    answers,
    ceiling,
  };
}

/** One live stretch of a run: its settings and ports, and where it starts. */
export interface LiveRun extends EffectPorts, Pick<RunOptions, "inspect"> {
  readonly journal?: Journal | undefined;
  readonly settings: RunSettings;
  readonly schemaVersion: number;
  /** The first event to log, before the machine starts: `run.started` for a new run, `user.messaged` for a next turn. */
  readonly begin?: RunEvent;
  /** A resumed run: the state its log replays to, and the calls the process died in. */
  readonly from?: Resumption;
  /** The next turn of a finished run. */
  readonly continues?: AgentMachineInput["continues"];
  /** The store the journal writes to: the children of agent tools keep their logs there too. */
  readonly store?: EventStore | undefined;
  /** Decisions for calls of paused children, by chained id (`<call id>/<child call id>`). */
  readonly childDecisions?: Readonly<Record<string, Decision>> | undefined;
  /** Answers for questions of paused children, by chained id. */
  readonly childAnswers?: Readonly<Record<string, unknown>> | undefined;
  /** A run resumed with an approver of the caller's: it is shown what waits below calls paused in their child. */
  readonly resumedWithApprover?: boolean | undefined;
}

/**
 * Runs a live machine with the run loop until it ends or waits for decisions nobody gives. With a
 * journal, every event goes to the log through the loop: the first event (`begin`), every event of
 * the run, the cancellation and the end (`run.finished`); a paused run's log just stops, ready for
 * `resumeAgent`.
 */
export async function runLive(run: LiveRun): Promise<AgentResult> {
  const { journal, signal, inspect, from, continues, settings, schemaVersion, begin } = run;
  if (run.ceiling !== undefined) checkCeiling(run.ceiling, settings);
  const input = { settings, schemaVersion, ...(continues === undefined ? {} : { continues }) };
  const restored = from === undefined ? {} : { snapshot: agentMachine.getPersistedSnapshot(from.snapshot) };
  const actor = createActor(agentMachine, { input, ...restored, ...(inspect === undefined ? {} : { inspect }) });
  const machine = drivenMachine(actor, from === undefined ? [] : pendingRequests(from.snapshot));
  const agents = agentsOf(run);
  const children = childCallsOf(run, () => actor.getSnapshot().context, agents);
  const ports = agents === undefined ? run : { ...run, agents };
  const loop = new RunLoop(machine, children === undefined ? ports : { ...ports, children }, from?.interrupted);
  const cancel = () => loop.cancel(signal?.reason);
  try {
    if (begin !== undefined) await loop.log(begin);
    signal?.addEventListener("abort", cancel, { once: true });
    actor.start();
    if (signal?.aborted) cancel();
    const outcome = await loop.run();
    const runId = journal === undefined ? {} : { runId: journal.runId };
    let result: AgentResult;
    if (outcome.type === "ended") {
      await loop.log({ type: "run.finished", outcome: outcomeOf(outcome.result, schemaVersion) });
      result = { ...outcome.result, ...runId };
    } else {
      const context = actor.getSnapshot().context;
      result = { ...pausedResult(context), ...runId };
    }
    run.onEvent?.({ type: "finished", result });
    return result;
  } finally {
    signal?.removeEventListener("abort", cancel);
    loop.stop();
    // The loop's end aborted the children in flight; they end (and release their runs) before the parent returns.
    await children?.settled();
    machine.stop();
    actor.stop();
  }
}

/** With a cost budget, refuses (before the run) agent tools whose models have no price: their share would be a guess. */
export function checkChildPrices(settings: RunSettings, registry: ToolRegistry): void {
  if (settings.costBudget === undefined || !hasChildTools(registry)) return;
  const names = registry.specs().flatMap((spec) => childToolOf(registry, spec.name)?.unpriced(settings.pricing) ?? []);
  if (names.length > 0) throw new RangeError(costBudgetRefusal([...new Set(names)]));
}

/** The children of a run whose registry (or one of whose agents' registries) has agent tools (none for any other run). */
function childCallsOf(
  run: LiveRun,
  context: () => AgentContext,
  agents: ReadonlyMap<string, RunAgent> | undefined,
): ChildCalls | undefined {
  const registries = agents === undefined ? [run.registry] : [...agents.values()].map((agent) => agent.registry);
  if (!registries.some(hasChildTools)) return undefined;
  const { store, journal, approve, childDecisions, childAnswers, onEvent } = run;
  const runId = journal?.runId;
  const given = { decisions: childDecisions, answers: childAnswers };
  const { pricing } = run.settings;
  const approverBelow = run.resumedWithApprover === true;
  const options = { store, runId, approve, ...given, onEvent, context, pricing, approverBelow };
  if (agents === undefined) return new ChildCalls({ ...options, registry: run.registry });
  // The calls of a reply are the tools of the agent that answered it: the one answering while they run.
  return new ChildCalls({
    ...options,
    get registry() {
      const handoffs = context().handoffs;
      return handoffs === null ? run.registry : (agents.get(handoffs.agent)?.registry ?? run.registry);
    },
  });
}

/**
 * The agents of a run with handoffs, found again from the agent it started with, each checked
 * against the profile its log holds: a registry whose tools differ is refused before anything runs.
 */
function agentsOf(run: LiveRun): ReadonlyMap<string, RunAgent> | undefined {
  const { handoffs, system } = run.settings;
  if (handoffs === undefined) return undefined;
  const agents = runAgents({ name: handoffs.agent, model: run.model, registry: run.registry, system }) ?? new Map();
  for (const profile of handoffs.agents) {
    const agent = agents.get(profile.name);
    const tools =
      agent === undefined ? null : canonicalJson([agent.registry.specs(), agent.registry.approvalRequired()]);
    if (tools === canonicalJson([profile.tools, profile.approvalRequired ?? []])) continue;
    throw new TypeError(
      agent === undefined
        ? `the run hands the conversation to agent '${profile.name}', which no handoff tool of this registry reaches`
        : `agent '${profile.name}' has other tools than the run was started with (specs and approval flags)`,
    );
  }
  return agents;
}

/**
 * The result of a run paused for decisions or answers: the list so far and the calls that wait,
 * its paused children's (by chained id) after its own. It is `awaiting_approval` while any
 * decision waits (with the questions waiting too, if any), else `awaiting_input`.
 */
export function pausedResult(context: AgentContext): AgentResult {
  const { steps, tokens } = context;
  const approvals = treeListing(pendingApprovals(context), childPending(context));
  const questions = treeQuestionListing(pendingQuestions(context), childQuestions(context));
  return {
    status: approvals.length > 0 || questions.length === 0 ? "awaiting_approval" : "awaiting_input",
    answer: null,
    steps,
    tokens,
    messages: messagesOf(context.transcript),
    pendingApprovals: approvals,
    ...(questions.length > 0 ? { pendingQuestions: questions } : {}),
    ...(context.handoffs === null ? {} : { agent: context.handoffs.agent }),
  };
}

/**
 * Checks the options that drive a run but are not logged: the effects' limits, the functions and
 * objects it is given. Throws a `TypeError` or `RangeError` before anything runs or is logged.
 */
export function checkRunOptions(
  options: Partial<
    Pick<
      RunOptions,
      "toolTimeoutMs" | "maxResultChars" | "approve" | "onEvent" | "onLogged" | "signal" | "store" | "runId" | "owner"
    >
  >,
): void {
  const { toolTimeoutMs, maxResultChars } = options;
  if (toolTimeoutMs !== undefined && !(typeof toolTimeoutMs === "number" && isTimeout(toolTimeoutMs))) {
    throw new RangeError(
      `toolTimeoutMs must be milliseconds above 0 and at most ${MAX_TIMER_MS}, or Infinity; got ${describe(toolTimeoutMs)}`,
    );
  }
  if (maxResultChars !== undefined && !(typeof maxResultChars === "number" && isCharLimit(maxResultChars))) {
    throw new RangeError(`maxResultChars must be a whole number above 0, or Infinity; got ${describe(maxResultChars)}`);
  }
  for (const name of ["approve", "onEvent", "onLogged"] as const) {
    if (options[name] !== undefined && typeof options[name] !== "function") {
      throw new TypeError(`${name} must be a function; got ${describe(options[name])}`);
    }
  }
  const { signal, store, runId } = options;
  if (signal !== undefined && !(signal instanceof AbortSignal)) {
    throw new TypeError(`signal must be an AbortSignal; got ${describe(signal)}`);
  }
  if (store !== undefined && !(typeof store?.append === "function" && typeof store.read === "function")) {
    throw new TypeError(`store must be an EventStore (append, read, list); got ${describe(store)}`);
  }
  if (runId !== undefined && (typeof runId !== "string" || runId === "")) {
    throw new TypeError(`runId must be a non-empty string; got ${describe(runId)}`);
  }
  if (options.owner !== undefined && !isPrincipal(options.owner)) {
    throw new TypeError(`owner must be { tenant, user? } with a non-empty tenant; got ${describe(options.owner)}`);
  }
}
