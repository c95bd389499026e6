import {
  type AgentContext,
  type AgentOptions,
  type AgentResult,
  agentMachine,
  checkReply,
  DEFAULT_MAX_RESULT_CHARS,
  DEFAULT_TOOL_TIMEOUT_MS,
  type EffectEvent,
  type EffectRequest,
  EVENT_LOG_SCHEMA_VERSION,
  ModelError,
  type ModelReply,
  type ModelWithLimits,
  messagesOf,
  parseEventLog,
  type RunEvent,
  type RunSettings,
  resolveSettings,
  type ToolCall,
  type ToolRegistry,
} from "@agentloop/core";
import { type Actor, createActor } from "xstate";

/**
 * The one module that knows how core's machine and its driver work: how a run's settings are
 * resolved, how the machine is started and fed, what its requests are, how a model is called and
 * a tool run, and what the model is told when a tool's result was lost. Everything else in this
 * package speaks of requests, events and results only, so a change in core is adapted here.
 */

/** A request of the machine with the name of the journaled step that answers it, unique in its run. */
export interface KeyedRequest {
  readonly request: EffectRequest;
  /** e.g. `model 3`, `tool 2.0 c1`, `decision 2.1 c2`: the step (model call) and the call's place in its reply. */
  readonly key: string;
}

/** Where a live machine stands, for `status`. */
export interface MachinePosition {
  /** The state, e.g. `callingModel` or `executingTools.runningTool`. */
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
  send(event: EffectEvent): void;
  /** The result once the machine reached a final state, else `null`. */
  result(): AgentResult | null;
  position(): MachinePosition;
  stop(): void;
}

/** The schema version of the logs this package writes. */
export const SCHEMA_VERSION = EVENT_LOG_SCHEMA_VERSION;

/** Whether the machine takes an event of this type (the log also holds `tool.started`, `run.started`, `run.finished`). */
export function isMachineEvent(event: RunEvent): event is EffectEvent & RunEvent {
  return (
    event.type === "model.replied" ||
    event.type === "tool.finished" ||
    event.type === "approval.decided" ||
    event.type === "run.cancelled"
  );
}

/** A run's settings exactly as `runAgent` resolves them; throws a `RangeError` for limits that make no sense. */
export function resolveRunSettings(
  task: string,
  options: AgentOptions,
  model: ModelWithLimits,
  registry: ToolRegistry,
): RunSettings {
  return resolveSettings({ ...options, task, model, registry });
}

/** The `run.started` event read back from a journal (where an unlimited budget is `null`), checked and decoded. */
export function decodeStarted(value: unknown): Extract<RunEvent, { type: "run.started" }> {
  const [event] = parseEventLog("run", [{ ...(value as object), seq: 0, at: "" }]);
  if (event?.type !== "run.started") throw new TypeError("the journaled start is not a run.started event");
  const { seq: _seq, at: _at, ...started } = event;
  return started;
}

/** Starts `agentMachine` on resolved settings; the requests of its first state are ready at once. */
export function startMachine(settings: RunSettings): RunMachine {
  const actor: Actor<typeof agentMachine> = createActor(agentMachine, { input: settings });
  const emitted: KeyedRequest[] = [];
  const keep = (request: EffectRequest) => emitted.push({ request, key: keyOf(request, actor.getSnapshot().context) });
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

function keyOf(request: EffectRequest, context: AgentContext): string {
  if (request.type === "callModel") return `model ${request.step}`;
  const kind = request.type === "runTool" ? "tool" : "decision";
  return `${kind} ${context.steps}.${placeOf(request.call, context)} ${request.call.id}`;
}

/** The call's index in the reply that asked for it (the trace's own frozen copy is what requests carry). */
function placeOf(call: ToolCall, context: AgentContext): number {
  return lastReplyCalls(context).indexOf(call);
}

/** The calls of the last reply in the trace. */
function lastReplyCalls(context: AgentContext): readonly ToolCall[] {
  const messages = context.transcript.items;
  for (let index = context.transcript.length - 1; index >= 0; index--) {
    const message = messages[index];
    if (message?.role === "assistant") return message.toolCalls;
  }
  return [];
}

function positionOf(actor: Actor<typeof agentMachine>): MachinePosition {
  const snapshot = actor.getSnapshot();
  const { context } = snapshot;
  const needsDecision = (call: ToolCall) => context.approvalRequired.includes(call.name);
  const awaitingDecision = context.pendingCalls.filter(
    (call) => needsDecision(call) && !Object.hasOwn(context.decisions, call.id),
  );
  const decisionKeys: Record<string, string> = {};
  for (const [index, call] of lastReplyCalls(context).entries()) {
    if (needsDecision(call)) decisionKeys[call.id] = `decision ${context.steps}.${index} ${call.id}`;
  }
  return {
    state: stateName(snapshot.value),
    steps: context.steps,
    tokens: context.tokens,
    waitsForDecision: snapshot.matches({ executingTools: "awaitingApproval" }),
    awaitingDecision,
    decisionKeys,
  };
}

function stateName(value: unknown): string {
  if (typeof value === "string") return value;
  const [[parent, child] = ["", ""]] = Object.entries(value as Record<string, unknown>);
  return `${parent}.${stateName(child)}`;
}

/** Calls the model for a `callModel` request; a failure or a reply that is not a `ModelReply` throws `ModelError`. */
export async function callModel(
  model: ModelWithLimits,
  request: Extract<EffectRequest, { type: "callModel" }>,
  signal: AbortSignal,
): Promise<ModelReply> {
  const messages = messagesOf(request.transcript);
  const failure = (problem: string, cause?: unknown) =>
    new ModelError(`model call ${request.step} failed: ${problem}`, { messages, step: request.step, cause });
  let raw: unknown;
  try {
    raw = await model(messages, request.specs, { signal });
  } catch (error) {
    throw failure(error instanceof Error ? `${error.name}: ${error.message}` : String(error), error);
  }
  const reply = checkReply(raw);
  if (typeof reply === "string") throw failure(`the model returned an invalid reply: ${reply}`);
  return reply;
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

/** Whether a call whose earlier run was cut off may run again: its tool is idempotent, or the call is invalid and runs nothing. */
export function mayRunAgain(registry: ToolRegistry, call: ToolCall): boolean {
  return registry.isIdempotent(call.name) || !registry.wouldRun(call);
}

/** What the model is told of a call whose run was cut off and that may not run again: the same words as `resumeAgent`'s. */
export function lostResult(call: ToolCall): string {
  return (
    `ERROR: the result of ${call.name} was lost: the run was interrupted while it ran, so it may or may not ` +
    "have taken effect. Check its effect before you call it again."
  );
}
