import { contentText, EventLogError, type Message, shownAtStep, type ToolCall } from "@agentloop/core";
import { RunFold } from "@agentloop/core/machine";
import {
  EVENT_LOG_SCHEMA_VERSION,
  isErrorResult,
  type LogFlags,
  logFlags,
  type StoredEvent,
} from "@agentloop/core/store";
import type { Context } from "@opentelemetry/api";
import { loggedFailure } from "./attempt-spans.js";
import { type SpanSettings, TurnSpans } from "./turn-spans.js";

/**
 * Sends the spans of a logged run, each at the time its events were logged: per turn an
 * `invoke_agent` span from `run.started` (or `user.messaged`) to `run.finished`; per model call
 * (a reply or a failed attempt) and per summary a `chat` span from the event before it (when the
 * call was made) to `model.replied`, `model.failed` or `context.compacted`; per call run an
 * `execute_tool` span from `tool.started` to `tool.finished`; per guardrail a span from the
 * start of its stage to its `guardrail.checked`; per backoff a span from the failure to
 * `retry.waited`. The log is folded first, so a log that does not fit its run throws
 * `EventLogError` and sends nothing.
 */
export function spansFromLog(
  settings: SpanSettings,
  runId: string,
  events: readonly StoredEvent[],
  parent: Context,
  childLog?: ChildLog,
): void {
  if (typeof runId !== "string" || runId === "") {
    throw new TypeError(`runId must be the run's id, a non-empty string; got ${String(runId)}`);
  }
  if (!Array.isArray(events)) throw new TypeError(`events must be the run's logged events, an array`);
  const times = events.map((event, position) => timeOf(runId, event, position));
  const shown = modelInputs(runId, events, settings.captureContent);
  const log = new LogTrace(settings, runId, parent, childLog);
  for (const [position, event] of events.entries()) log.take(event, times[position] as Date, shown[position]);
  log.finish();
}

/**
 * Folds the whole log with core's `RunFold` (its checks, so that a log that does not fit throws
 * before any span is sent) and keeps, when content is recorded, for each model call
 * (`model.replied`, `model.failed`) the messages the model was shown: the list as it stood, or
 * after a compaction the view it left, which core's `shownAtStep` reads from the log.
 */
function modelInputs(
  runId: string,
  events: readonly StoredEvent[],
  content: boolean,
): (readonly Message[] | undefined)[] {
  if (events.length === 0) {
    throw new EventLogError(`run '${runId}': event 0 (missing) must be 'run.started'`, {
      runId,
      position: 0,
      intact: [],
    });
  }
  const fold = new RunFold({ runId });
  let compacted = false;
  try {
    return events.map((event) => {
      const called = content && fold.length > 0 && (event.type === "model.replied" || event.type === "model.failed");
      // The fold's position has the whole list; the view is read again from the log only once a
      // compaction made it differ (each such read folds the log up to the call).
      const shown = !called
        ? undefined
        : compacted
          ? shownAtStep(events, fold.position.steps + 1, runId)
          : fold.position.messages;
      fold.apply(event);
      compacted ||= event.type === "context.compacted";
      return shown ?? undefined;
    });
  } finally {
    fold.stop();
  }
}

/** The log of a child run (an agent tool's call), by its run id; undefined when it is not at hand. */
export type ChildLog = (childRunId: string) => readonly StoredEvent[] | undefined;

/** The turns of a log being turned into spans, one event at a time. */
class LogTrace {
  #turn: TurnSpans | null = null;
  #step = 0;
  #previous = new Date(0);
  #previousType = "";
  /** When the guardrails whose verdicts are being read started: at the event before the first of them. */
  #guardStart = new Date(0);
  #tools: ReadonlyMap<string, string> = new Map();
  #flags: LogFlags = logFlags(EVENT_LOG_SCHEMA_VERSION);
  readonly #calls = new Map<string, ToolCall>();

  constructor(
    readonly settings: SpanSettings,
    readonly runId: string,
    readonly parent: Context,
    readonly childLog: ChildLog | undefined,
  ) {}

  /** Takes the next event, logged `at`; `shown` is the list the model was shown, for a reply. */
  take(event: StoredEvent, at: Date, shown?: readonly Message[]): void {
    switch (event.type) {
      case "run.started":
        this.#started(event, at);
        break;
      case "user.messaged":
        this.#startTurn(at, {
          input: [{ role: "user", content: event.content }],
          output: event.turn?.output !== undefined,
        });
        break;
      case "model.replied":
        this.#replied(event, at, shown);
        break;
      case "model.failed":
        this.#failed(event, at, shown);
        break;
      case "context.compacted":
      case "guardrail.checked":
      case "output.checked":
        this.#checked(event, at);
        break;
      case "tool.started":
        this.#turn?.startTool(this.#call(event.callId, event.name), at);
        if (event.childRunId !== undefined) this.#child(event.callId, event.name, event.childRunId);
        break;
      case "tool.finished":
        this.#turn?.endTool(
          this.#call(event.callId),
          contentText(event.content),
          isErrorResult(event, this.#flags),
          at,
        );
        break;
      case "approval.decided": {
        const { approved, reason } = event;
        this.#turn?.decided(this.#call(event.callId), reason === undefined ? { approved } : { approved, reason }, at);
        break;
      }
      case "run.finished":
        this.#turn?.end(event.outcome, at);
        this.#turn = null;
        break;
    }
    this.#previous = at;
    this.#previousType = event.type;
  }

  /**
   * The spans of the child run that call `callId` ran, from its own log, under the call's
   * `execute_tool` span and named for the tool, as a live run nests them; nothing when its log is
   * not at hand. The child's model is not in its log, so its spans name none.
   */
  #child(callId: string, toolName: string, childRunId: string): void {
    const events = this.childLog?.(childRunId);
    const turn = this.#turn;
    if (events === undefined || turn === null) return;
    const none = { model: undefined, maxTokens: undefined, fallbackModels: [], summarizerModel: undefined };
    const child = { ...this.settings, ...none, agentName: toolName };
    spansFromLog(child, childRunId, events, turn.toolContext(callId), this.childLog);
  }

  /** The log stops here: a turn still open ends at its last event. */
  finish(): void {
    this.#turn?.stop(this.#previous);
  }

  #started(event: Extract<StoredEvent, { type: "run.started" }>, at: Date): void {
    const { settings } = event;
    this.#flags = logFlags(event.schemaVersion);
    const history = settings.history ?? [];
    this.#tools = new Map(settings.tools.map((spec) => [spec.name, spec.description]));
    const input: Message[] = [...history, { role: "user", content: settings.task }];
    this.#startTurn(at, { system: settings.system, input, output: settings.output !== undefined });
  }

  #startTurn(at: Date, given: { system?: string; input: readonly Message[]; output: boolean }): void {
    this.#turn?.stop(this.#previous);
    const start = { conversationId: this.runId, parent: this.parent, tools: this.#tools, at, ...given };
    this.#turn = new TurnSpans(this.settings, start);
  }

  #replied(event: Extract<StoredEvent, { type: "model.replied" }>, at: Date, shown?: readonly Message[]): void {
    this.#step += 1;
    for (const call of event.reply.toolCalls) this.#calls.set(call.id, call);
    const turn = this.#turn;
    if (turn === null) return;
    // The model was called right after the event before its reply was logged.
    turn.startChat(this.#step, this.#previous);
    turn.modelChosen(event.model ?? 0);
    if (shown !== undefined) turn.chatInput(shown);
    turn.endChat(event.reply, at);
  }

  /** A failed attempt: a model call, made right after the event before it, that ended in `model.failed`. */
  #failed(event: Extract<StoredEvent, { type: "model.failed" }>, at: Date, shown?: readonly Message[]): void {
    const turn = this.#turn;
    turn?.startChat(this.#step + 1, this.#previous);
    turn?.modelChosen(event.model);
    if (shown !== undefined) turn?.chatInput(shown);
    turn?.failAttempt(loggedFailure(event.error), at);
  }

  /** A compaction, a guardrail's verdict or an answer's check. */
  #checked(
    event: Extract<StoredEvent, { type: "context.compacted" | "guardrail.checked" | "output.checked" }>,
    at: Date,
  ): void {
    const checks = this.#turn?.checks;
    if (event.type === "context.compacted") {
      const { step, keptFrom, summary, usage } = event;
      checks?.compacted(step, keptFrom, at);
      if (summary !== undefined) checks?.summarized({ step, keptFrom, summary, usage }, this.#previous, at);
    } else if (event.type === "guardrail.checked") {
      // A stage's guardrails all start when the stage does: at the event before its first verdict.
      if (this.#previousType !== "guardrail.checked") this.#guardStart = this.#previous;
      checks?.guardrailChecked(event, at, this.#guardStart);
    } else {
      checks?.outputChecked(event.valid, event.valid ? undefined : event.problem, at);
    }
  }

  #call(id: string, name?: string): ToolCall {
    return this.#calls.get(id) ?? { id, name: name ?? "", args: {} };
  }
}

function timeOf(runId: string, event: StoredEvent, position: number): Date {
  const at = new Date(typeof event?.at === "string" ? event.at : Number.NaN);
  if (Number.isNaN(at.getTime())) {
    throw new RangeError(`run '${runId}': event ${position} has no valid time: 'at' must be an ISO 8601 time`);
  }
  return at;
}
