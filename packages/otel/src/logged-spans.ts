import { contentText, type Message, type ToolCall } from "@agentloop/core";
import { EVENT_LOG_SCHEMA_VERSION, isErrorResult, type LogFlags, logFlags, type RunEvent } from "@agentloop/core/store";
import type { Context } from "@opentelemetry/api";
import { loggedFailure } from "./attempt-spans.js";
import { type SpanSettings, TurnSpans } from "./turn-spans.js";

/**
 * Where the events come from: a run's log, read after the fact (each event at the time it was
 * logged; the turns start and end with the log's own events), or a live run's `logged` events
 * (now; its turn is given, and the model calls, their failures and the summarizer's calls are
 * traced where they are made).
 */
export type EventSource =
  | {
      readonly kind: "log";
      readonly runId: string;
      readonly parent: Context;
      /** The spans of the child run a call ran, from its own log, under the call's span. */
      readonly child: (turn: TurnSpans, callId: string, toolName: string, childRunId: string) => void;
    }
  | {
      readonly kind: "live";
      readonly turn: TurnSpans;
      /** When the summarizer was called for the compaction just logged (undefined: it was not). */
      readonly summaryStart: (turn: TurnSpans) => Date | undefined;
    };

/**
 * Folds a run's logged events into the spans of its turns, one event at a time: the one place a
 * logged event becomes spans, whether it is read from a log or heard from a live run.
 */
export class LoggedSpans {
  #turn: TurnSpans | null;
  #step = 0;
  #previous = new Date(0);
  #previousType = "";
  /** When the guardrails whose verdicts are being read started: at the event before the first of them. */
  #guardStart = new Date(0);
  #tools: ReadonlyMap<string, string> = new Map();
  #flags: LogFlags = logFlags(EVENT_LOG_SCHEMA_VERSION);
  readonly #calls = new Map<string, ToolCall>();
  readonly #settings: SpanSettings;
  readonly #source: EventSource;

  constructor(settings: SpanSettings, source: EventSource) {
    this.#settings = settings;
    this.#source = source;
    this.#turn = source.kind === "live" ? source.turn : null;
  }

  /** The turn the events go to (null between the turns of a log). */
  get turn(): TurnSpans | null {
    return this.#turn;
  }

  /** A call the run told of before its start is logged (one waiting for a decision): its arguments for its span. */
  know(call: ToolCall): void {
    this.#calls.set(call.id, call);
  }

  /** Takes the next event, logged `at` (absent: now); `shown` is the list the model was shown, for a reply read from a log. */
  take(event: RunEvent, at?: Date, shown?: readonly Message[]): void {
    const live = this.#source.kind === "live";
    switch (event.type) {
      case "run.started":
        this.#flags = logFlags(event.schemaVersion);
        if (!live) this.#started(event, at);
        break;
      case "user.messaged":
        if (!live) {
          this.#startTurn(at, {
            input: [{ role: "user", content: event.content }],
            output: event.turn?.output !== undefined,
          });
        }
        break;
      case "model.replied":
        this.#replied(event, live, at, shown);
        break;
      case "model.failed":
        // A live run's failed attempt is traced where the model is called.
        if (!live) this.#failed(event, at, shown);
        break;
      case "context.compacted":
      case "guardrail.checked":
      case "output.checked":
        this.#checked(event, at);
        break;
      case "tool.started":
        this.#turn?.startTool(this.#call(event.callId, event.name), at);
        if (event.childRunId !== undefined && this.#source.kind === "log" && this.#turn !== null) {
          this.#source.child(this.#turn, event.callId, event.name, event.childRunId);
        }
        break;
      case "tool.finished":
        this.#turn?.endTool(
          this.#call(event.callId),
          contentText(event.content),
          isErrorResult(event, this.#flags),
          at,
        );
        break;
      case "memory.recalled":
        // The recall starts once the turn may call the model: at the event before it (its start, or its last input verdict).
        this.#turn?.checks.recalled(event, this.#previous, at);
        break;
      case "memory.written":
        this.#turn?.memoryWritten(event, at);
        break;
      case "approval.decided": {
        const { approved, reason } = event;
        this.#turn?.decided(this.#call(event.callId), reason === undefined ? { approved } : { approved, reason }, at);
        break;
      }
      case "run.finished":
        // A live turn ends with the run's result, where the run is called.
        if (!live) {
          this.#turn?.end(event.outcome, at);
          this.#turn = null;
        }
        break;
    }
    this.#previous = at ?? new Date();
    this.#previousType = event.type;
  }

  /** The log stops here: a turn still open ends at its last event. */
  finish(): void {
    this.#turn?.stop(this.#previous);
  }

  #started(event: Extract<RunEvent, { type: "run.started" }>, at: Date | undefined): void {
    const { settings } = event;
    const history = settings.history ?? [];
    this.#tools = new Map(settings.tools.map((spec) => [spec.name, spec.description]));
    const input: Message[] = [...history, { role: "user", content: settings.task }];
    this.#startTurn(at, { system: settings.system, input, output: settings.output !== undefined });
  }

  #startTurn(at: Date | undefined, given: { system?: string; input: readonly Message[]; output: boolean }): void {
    if (this.#source.kind !== "log") return;
    this.#turn?.stop(this.#previous);
    const { runId, parent } = this.#source;
    const start = { conversationId: runId, parent, tools: this.#tools, at: at ?? new Date(), ...given };
    this.#turn = new TurnSpans(this.#settings, start);
  }

  /** A reply: a live run's `chat` span started with its call; a log's starts right after the event before it. */
  #replied(
    event: Extract<RunEvent, { type: "model.replied" }>,
    live: boolean,
    at: Date | undefined,
    shown: readonly Message[] | undefined,
  ): void {
    this.#step += 1;
    for (const call of event.reply.toolCalls) this.#calls.set(call.id, call);
    const turn = this.#turn;
    if (turn === null) return;
    if (!live) {
      turn.startChat(this.#step, this.#previous);
      turn.modelChosen(event.model ?? 0);
      if (shown !== undefined) turn.chatInput(shown);
    }
    turn.endChat(event.reply, at);
  }

  /** A failed attempt: a model call, made right after the event before it, that ended in `model.failed`. */
  #failed(event: Extract<RunEvent, { type: "model.failed" }>, at: Date | undefined, shown?: readonly Message[]): void {
    const turn = this.#turn;
    turn?.startChat(this.#step + 1, this.#previous);
    turn?.modelChosen(event.model);
    if (shown !== undefined) turn?.chatInput(shown);
    turn?.failAttempt(loggedFailure(event.error), at);
  }

  /** A compaction, a guardrail's verdict or an answer's check. */
  #checked(
    event: Extract<RunEvent, { type: "context.compacted" | "guardrail.checked" | "output.checked" }>,
    at: Date | undefined,
  ): void {
    const turn = this.#turn;
    if (turn === null) return;
    const { checks } = turn;
    const source = this.#source;
    if (event.type === "context.compacted") {
      const { step, keptFrom, summary, usage } = event;
      checks.compacted(step, keptFrom, at);
      // A live summary's call started when the summarizer was called; a log's, at the event before.
      const start = source.kind === "live" ? source.summaryStart(turn) : this.#previous;
      if (summary !== undefined && start !== undefined)
        checks.summarized({ step, keptFrom, summary, usage }, start, at);
    } else if (event.type === "guardrail.checked") {
      // A live guardrail's span started when it did; a log's stage's guardrails all start at the event before its first verdict.
      if (source.kind === "live") {
        checks.guardrailChecked(event);
      } else {
        if (this.#previousType !== "guardrail.checked") this.#guardStart = this.#previous;
        checks.guardrailChecked(event, at, this.#guardStart);
      }
    } else {
      checks.outputChecked(event.valid, event.valid ? undefined : event.problem, at);
    }
  }

  #call(id: string, name?: string): ToolCall {
    return this.#calls.get(id) ?? { id, name: name ?? "", args: {} };
  }
}
