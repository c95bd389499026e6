import type { AgentResult, ModelReply, ToolCall, ToolRegistry } from "@agentloop/core";
import { ModelError } from "@agentloop/core";
import { assignCallIds, copyReply } from "@agentloop/core/adapter";
import {
  type AgentContext,
  type AgentEvent,
  type AgentOptions,
  type AgentRequest,
  agentMachine,
  DEFAULT_TOOL_TIMEOUT_MS,
  listView,
  lostResult,
  type ModelWithLimits,
  mayRunAgain,
  messagesOf,
  outcomeOf,
  type RunSettings,
  resolveSettings,
} from "@agentloop/core/machine";
import {
  EVENT_LOG_SCHEMA_VERSION,
  parseEventLog,
  type RunEvent,
  runHashSeed,
  type StoredEvent,
  stampEvent,
} from "@agentloop/core/store";
import { DEFAULT_MAX_RESULT_CHARS } from "@agentloop/core/testing";
import { type Actor, createActor } from "xstate";

/**
 * The one module that knows how core's machine and its driver work: how a run's settings are
 * resolved, how the machine is started and fed, what its requests are, how a model is called and
 * a tool run, and what the model is told when a tool's result was lost. Everything else in this
 * package speaks of requests, events and results only, so a change in core is adapted here.
 */

/** The requests the machine makes and the events it takes, as this package names them. */
export type { AgentEvent, AgentOptions, AgentRequest, ModelWithLimits, RunEvent, RunSettings, StoredEvent };
export { lostResult, mayRunAgain };

/** A request of the machine with the name of the journaled step that answers it, unique in its run. */
export interface KeyedRequest {
  readonly request: AgentRequest;
  /** e.g. `model 3`, `tool 2.0 c1`, `decision 2.1 c2`: the step (model call) and the call's place in its reply. */
  readonly key: string;
}

/** Where a live machine stands, for `status`. */
export interface MachinePosition {
  /** The state, e.g. `callingModel` or `executingTools.runningTools`. */
  readonly state: string;
  readonly steps: number;
  readonly tokens: number;
  /** Whether the machine is waiting for a decision (and so for nothing else). */
  readonly waitsForDecision: boolean;
  /** Calls of the current reply that need a decision and have none yet, in call order. */
  readonly awaitingDecision: readonly ToolCall[];
  /** The key of the decision of every call of the current reply that needs one (decided or not), by call id. */
  readonly decisionKeys: Readonly<Record<string, string>>;
}

/** A live `agentMachine` fed by hand: the driver takes its requests and sends it events. */
export interface RunMachine {
  /** The requests emitted since the last call, in the order they were emitted. */
  takeRequests(): KeyedRequest[];
  /** Hands the machine one domain event. */
  send(event: AgentEvent): void;
  /** The result once the machine reached a final state, else `null`. */
  result(): AgentResult | null;
  position(): MachinePosition;
  stop(): void;
}

/** The schema version of the logs this package writes. */
export const SCHEMA_VERSION = EVENT_LOG_SCHEMA_VERSION;

/** Whether the machine takes an event of this type (the log also holds `tool.started`, `run.started`, `run.finished`). */
export function isMachineEvent(event: RunEvent): event is AgentEvent {
  return (
    event.type === "model.replied" ||
    event.type === "tool.finished" ||
    event.type === "approval.decided" ||
    event.type === "run.cancelled"
  );
}

/** A run's settings exactly as `runAgent` resolves them; throws a `TypeError` or `RangeError` for options that make no sense. */
export function resolveRunSettings(
  task: string,
  options: AgentOptions,
  model: ModelWithLimits,
  registry: ToolRegistry,
): RunSettings {
  return resolveSettings(task, model, registry, options);
}

/** The `run.started` event read back from a journal (where an unlimited budget is `null`), checked and decoded. */
export function decodeStarted(runId: string, value: unknown): Extract<RunEvent, { type: "run.started" }> {
  const stamped = stampEvent(value as RunEvent, 0, "", runHashSeed(runId));
  const [event] = parseEventLog(runId, [JSON.parse(JSON.stringify(stamped))]);
  if (event?.type !== "run.started") throw new TypeError("the journaled start is not a run.started event");
  const { seq: _seq, at: _at, hash: _hash, ...started } = event;
  return started;
}

/** The schema of the logs this package writes, and the events stamped for them: position, time and hash chain. */
export class LogStamps {
  #tip: string;
  #length = 0;

  constructor(runId: string) {
    this.#tip = runHashSeed(runId);
  }

  get length(): number {
    return this.#length;
  }

  /** Stamps the next event: its position, `at`, and its hash chained to the event before it. */
  next(event: RunEvent, at: string): StoredEvent {
    const stored = stampEvent(event, this.#length, at, this.#tip);
    this.#tip = stored.hash ?? this.#tip;
    this.#length++;
    return stored;
  }
}

/** The `run.finished` event of a result, as `runAgent` logs it. */
export function finishedEvent(result: AgentResult): RunEvent {
  return { type: "run.finished", outcome: outcomeOf(result, SCHEMA_VERSION) };
}

/** Starts `agentMachine` on resolved settings; the requests of its first state are ready at once. */
export function startMachine(settings: RunSettings): RunMachine {
  const actor: Actor<typeof agentMachine> = createActor(agentMachine, {
    input: { settings, schemaVersion: SCHEMA_VERSION },
  });
  const emitted: KeyedRequest[] = [];
  const keep = (request: AgentRequest) => emitted.push({ request, key: keyOf(request, actor.getSnapshot().context) });
  actor.on("callModel", keep);
  actor.on("runTool", keep);
  actor.on("requestDecision", keep);
  actor.start();
  return {
    takeRequests: () => emitted.splice(0),
    send: (event) => actor.send(event),
    result: () => {
      const snapshot = actor.getSnapshot();
      return snapshot.status === "done" ? (snapshot.output ?? null) : null;
    },
    position: () => positionOf(actor),
    stop: () => actor.stop(),
  };
}

function keyOf(request: AgentRequest, context: AgentContext): string {
  if (request.type === "callModel") return `model ${request.step}`;
  const kind = request.type === "runTool" ? "tool" : "decision";
  return `${kind} ${context.steps}.${placeOf(request.call, context)} ${request.call.id}`;
}

/** The call's index in the reply that asked for it (call ids are unique in a run). */
function placeOf(call: ToolCall, context: AgentContext): number {
  return (context.batch?.calls ?? []).findIndex((each) => each.id === call.id);
}

function positionOf(actor: Actor<typeof agentMachine>): MachinePosition {
  const snapshot = actor.getSnapshot();
  const { context } = snapshot;
  const { batch } = context;
  const calls = batch?.calls ?? [];
  const awaitingDecision = calls.filter((_, index) => batch?.stateOf(index) === "deciding");
  const decisionKeys: Record<string, string> = {};
  for (const [index, call] of calls.entries()) {
    if (context.approvalRequired.includes(call.name))
      decisionKeys[call.id] = `decision ${context.steps}.${index} ${call.id}`;
  }
  return {
    state: stateName(snapshot.value),
    steps: context.steps,
    tokens: context.tokens,
    waitsForDecision: snapshot.matches({ executingTools: "awaitingDecision" }),
    awaitingDecision,
    decisionKeys,
  };
}

function stateName(value: unknown): string {
  if (typeof value === "string") return value;
  const [[parent, child] = ["", ""]] = Object.entries(value as Record<string, unknown>);
  return `${parent}.${stateName(child)}`;
}

/**
 * Calls the model for a `callModel` request as `runAgent`'s driver does: it is shown a read-only
 * view of the list, its reply is checked and copied, and a call id that is empty or used before in
 * the run is replaced by a positional one. A failure or an invalid reply throws `ModelError`.
 */
export async function callModel(
  model: ModelWithLimits,
  request: Extract<AgentRequest, { type: "callModel" }>,
  signal: AbortSignal,
): Promise<ModelReply> {
  const failure = (problem: string, cause?: unknown) =>
    new ModelError(`model call ${request.step} failed: ${problem}`, {
      messages: messagesOf(request.transcript),
      step: request.step,
      cause,
    });
  let raw: unknown;
  try {
    raw = await model(listView(request.transcript), request.specs, { signal });
  } catch (error) {
    throw failure(error instanceof Error ? `${error.name}: ${error.message}` : String(error), error);
  }
  const reply = copyReply(raw);
  if (typeof reply === "string") throw failure(`the model returned an invalid reply: ${reply}`);
  return withUniqueIds(reply, request);
}

function withUniqueIds(reply: ModelReply, request: Extract<AgentRequest, { type: "callModel" }>): ModelReply {
  if (reply.toolCalls.length === 0) return reply;
  const ids = assignCallIds(
    reply.toolCalls.map((call) => call.id),
    messagesOf(request.transcript),
  );
  if (reply.toolCalls.every((call, index) => call.id === ids[index])) return reply;
  return { ...reply, toolCalls: reply.toolCalls.map((call, index) => ({ ...call, id: ids[index] as string })) };
}

/** Limits of a tool's run that the run sets for tools that do not set their own. */
export interface ToolLimits {
  readonly toolTimeoutMs?: number | undefined;
  readonly maxResultChars?: number | undefined;
}

/** Runs one call through the registry (its checks, timeout and cut) and returns the observation; never rejects. */
export function runTool(
  registry: ToolRegistry,
  call: ToolCall,
  limits: ToolLimits,
  signal: AbortSignal,
): Promise<string> {
  return registry.executeCall(call, {
    signal,
    timeoutMs: limits.toolTimeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS,
    maxResultChars: limits.maxResultChars ?? DEFAULT_MAX_RESULT_CHARS,
  });
}
