import type { AgentResult, PendingQuestion, ToolCall, ToolRegistry } from "@agentloop/core";
import { type DrivenMachine, drivenMachine, type RunToolOptions, requestKey } from "@agentloop/core/driver";
import {
  type AgentEvent,
  type AgentOptions,
  type AgentRequest,
  agentMachine,
  type ModelWithLimits,
  outcomeOf,
  positionOf,
  type RunPosition,
  type RunSettings,
  resolveSettings,
} from "@agentloop/core/machine";
import {
  EVENT_LOG_SCHEMA_VERSION,
  LogStamps,
  parseEventLog,
  type RunEvent,
  runHashSeed,
  type StoredEvent,
  stampEvent,
} from "@agentloop/core/store";
import { createActor } from "xstate";

/**
 * The one module that knows how core's machine is started and fed: how a run's settings are
 * resolved, what its requests are and where it stands. The requests are performed by core's own
 * performers (`@agentloop/core/driver`) and logged with core's stamps, so everything else in this
 * package speaks of requests, events and results only, and a change in core is adapted here.
 */

/** The requests the machine makes and the events it takes, as this package names them. */
export type { AgentEvent, AgentOptions, AgentRequest, ModelWithLimits, RunEvent, RunSettings, StoredEvent };
export { LogStamps };

/** Limits of a tool's run that the run sets for tools that do not set their own. */
export type ToolLimits = Pick<RunToolOptions, "toolTimeoutMs" | "maxResultChars">;

/** Where a live machine stands, for `status`. */
export interface MachinePosition {
  /** The state, e.g. `callingModel` or `executingTools.runningTools`. */
  readonly state: string;
  readonly steps: number;
  readonly tokens: number;
  /** Whether the machine waits for decisions or answers (and so for nothing else). */
  readonly waitsForDecision: boolean;
  /** Calls of the current reply that need a decision and have none yet, in call order. */
  readonly awaitingDecision: readonly ToolCall[];
  /** The key of the decision of every call of the current reply that needs one (decided or not), by call id. */
  readonly decisionKeys: Readonly<Record<string, string>>;
  /** Questions of the current reply that wait for an answer, in call order. */
  readonly questions: readonly PendingQuestion[];
  /** The key of the answer and the ask-user tool of every question of the current reply (answered or not), by call id. */
  readonly questionKeys: Readonly<Record<string, QuestionKey>>;
}

/** Where the answer to a question is kept, and the tool that asked it (whose shape the answer must fit). */
export interface QuestionKey {
  readonly key: string;
  readonly tool: string;
  /** The answer's shape a running tool gave with its question (an ask-user tool's is its own). */
  readonly schema?: Readonly<Record<string, unknown>>;
}

/** A live `agentMachine` as core's run loop drives it, with the name of the journaled step that answers each of its requests. */
export interface KeyedMachine {
  readonly driven: DrivenMachine;
  /** The request's key as core's request table names it, e.g. `model 3`, `tool 2.0 c1`, `decision 2.1 c2`: unique in its run. */
  keyOf(request: AgentRequest): string;
  /** The `runTool` request of a call of the current reply. */
  toolRequest(callId: string): Extract<AgentRequest, { type: "runTool" }>;
  position(): MachinePosition;
  stop(): void;
}

/** The schema version of the logs this package writes. */
export const SCHEMA_VERSION = EVENT_LOG_SCHEMA_VERSION;

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

/** The `run.finished` event of a result, as `runAgent` logs it. */
export function finishedEvent(result: AgentResult): RunEvent {
  return { type: "run.finished", outcome: outcomeOf(result, SCHEMA_VERSION) };
}

/** Starts `agentMachine` on resolved settings; the requests of its first state are ready at once. */
export function startMachine(settings: RunSettings): KeyedMachine {
  const actor = createActor(agentMachine, { input: { settings, schemaVersion: SCHEMA_VERSION } });
  const machine = drivenMachine(actor);
  /** Each call's place in the current reply (`2.0 c1`) and its `runTool` request, set as the requests are taken. */
  const places = new Map<string, string>();
  const tools = new Map<string, Extract<AgentRequest, { type: "runTool" }>>();
  /** The question each running call asked (`askUser` with `asked`), keyed as the request table keys it. */
  const asked = new Map<string, QuestionKey>();
  const at = {
    get steps() {
      return positionOf(actor.getSnapshot()).steps;
    },
    place: (callId: string) => places.get(callId) as string,
  };
  const driven: DrivenMachine = {
    takeRequests: () => {
      const requests = machine.takeRequests();
      if (requests.some((request) => request.type !== "callModel")) {
        const { steps, calls } = positionOf(actor.getSnapshot());
        for (const [index, call] of calls.entries()) places.set(call.id, `${steps}.${index} ${call.id}`);
        for (const request of requests) {
          if (request.type === "runTool") tools.set(request.call.id, request);
          if (request.type === "askUser" && request.asked !== undefined) {
            const { call, schema } = request;
            const key = requestKey(request, at);
            asked.set(call.id, schema === undefined ? { key, tool: call.name } : { key, tool: call.name, schema });
          }
        }
      }
      return requests;
    },
    snapshot: () => actor.getSnapshot(),
    send: (event) => actor.send(event),
  };
  actor.start();
  return {
    driven,
    keyOf: (request) => requestKey(request, at),
    toolRequest: (callId) => tools.get(callId) as Extract<AgentRequest, { type: "runTool" }>,
    position: () => machinePosition(positionOf(actor.getSnapshot()), settings, asked),
    stop: () => {
      machine.stop();
      actor.stop();
    },
  };
}

function machinePosition(
  position: RunPosition,
  settings: RunSettings,
  asked: ReadonlyMap<string, QuestionKey>,
): MachinePosition {
  const approvalRequired = settings.approvalRequired ?? [];
  const askTools = new Set((settings.askTools ?? []).map((tool) => tool.name));
  const decisionKeys: Record<string, string> = {};
  const questionKeys: Record<string, QuestionKey> = {};
  for (const [index, call] of position.calls.entries()) {
    const place = `${position.steps}.${index} ${call.id}`;
    if (approvalRequired.includes(call.name)) decisionKeys[call.id] = `decision ${place}`;
    // A call of an ask-user tool is a question when its `question` is a string (else it runs as a tool).
    if (askTools.has(call.name) && call.rawArgs === undefined && typeof call.args.question === "string") {
      questionKeys[call.id] = { key: `question ${place}`, tool: call.name };
    }
  }
  // A running tool's question: the one its latest attempt asked.
  for (const question of position.questions) {
    const key = asked.get(question.id);
    if (key !== undefined && !Object.hasOwn(questionKeys, question.id)) questionKeys[question.id] = key;
  }
  const { state, steps, tokens, waiting, questions } = position;
  const waitsForDecision = state === "executingTools.awaitingDecision" || state === "executingTools.awaitingInput";
  return { state, steps, tokens, waitsForDecision, awaitingDecision: waiting, decisionKeys, questions, questionKeys };
}
