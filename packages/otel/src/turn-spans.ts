import type { Decision, MemoryScope, Message, ModelReply, ToolCall } from "@agentloop/core";
import { type Attributes, type Context, type Span, SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
import { endFailed, type Failure, recordError, type SpanPlace, waitSpan } from "./attempt-spans.js";
import { CheckSpans, scopeName } from "./check-spans.js";
import {
  answerMessages,
  callArguments,
  finishReason,
  inputMessages,
  outputMessages,
  systemInstructions,
} from "./content.js";
import {
  APPROVAL_EVENT,
  ATTR,
  MEMORY_WRITTEN_EVENT,
  OPERATION,
  OUTPUT_JSON,
  TOOL_ERROR,
  usageAttributes,
} from "./semconv.js";
import type { SpanSettings } from "./span-settings.js";

export type { SpanSettings } from "./span-settings.js";

/** How a turn starts: the run it belongs to, its parent, and what it was given. */
export interface TurnStart {
  /** The run's id, written as `gen_ai.conversation.id` on every span. */
  readonly conversationId: string;
  readonly parent: Context;
  /** Tool descriptions by tool name, for `gen_ai.tool.description`. */
  readonly tools: ReadonlyMap<string, string>;
  /** The system prompt (a run's first turn only); recorded with `captureContent`. */
  readonly system?: string | undefined;
  /** The messages the turn was given (history and task, or the user's next message); recorded with `captureContent`. */
  readonly input?: readonly Message[] | undefined;
  /** When it started; now when not given. */
  readonly at?: Date | undefined;
  /** The model's own reply limit (an adapter's `maxReplyTokens`), over the settings'. */
  readonly maxTokens?: number | undefined;
  /** Whether the turn asks for a typed answer (an `output` schema). */
  readonly output?: boolean | undefined;
}

/** How a turn ended, as `AgentResult` and the log's `run.finished` both say it. */
export interface TurnOutcome {
  readonly status: string;
  readonly answer: string | null;
  readonly steps: number;
  readonly tokens: number;
  readonly cost?: number | undefined;
}

/**
 * The spans of one turn of a run: `invoke_agent` for the turn, and under it a `chat` span per
 * model call and an `execute_tool` span per call run. Fed by a live run's events or by a log's
 * (each method takes the time it happened, now when not given), so that both give the same
 * tree. Spans still open when the turn ends are ended with it, with no status.
 */
export class TurnSpans {
  /** The turn's context: its `invoke_agent` span under the parent. */
  readonly context: Context;
  /** The turn's guardrails, answer checks and compactions. */
  readonly checks: CheckSpans;
  readonly #settings: SpanSettings;
  readonly #start: TurnStart;
  readonly #root: Span;
  readonly #startedAt: Date;
  #chat: Span | null = null;
  /** The open model call: its step, when it started, and which model it went to (0 the run's). */
  #attempt = { step: 0, at: new Date(0), model: 0 };
  /** The step's last failed attempt, until the next attempt shows whether it was tried again on the same model. */
  #failed: { step: number; model: number; at: Date } | null = null;
  #output = false;
  readonly #tools = new Map<string, Span>();
  /** The turns of the child runs of the turn's agent tool calls: any still open ends with this one. */
  readonly #children: TurnSpans[] = [];
  /** The tool name of each call seen starting, for the child run an agent tool's call runs. */
  readonly #toolNames = new Map<string, string>();
  /** The turn's usage so far, summed over its model calls (cache reads and writes when any call reported them). */
  #usage: TurnUsage | null = null;
  /** The finish reason of the turn's last reply, which ended the turn or left it waiting. */
  #lastFinish: string | null = null;
  readonly #maxTokens: number | undefined;
  #ended = false;

  constructor(settings: SpanSettings, start: TurnStart) {
    this.#settings = settings;
    this.#start = start;
    this.#startedAt = start.at ?? new Date();
    this.#maxTokens = start.maxTokens ?? settings.maxTokens;
    const { agentName, captureContent } = settings;
    const attributes: Attributes = {
      ...this.#base(OPERATION.agent),
      ...(agentName ? { [ATTR.agentName]: agentName } : {}),
    };
    if (captureContent && start.system !== undefined)
      attributes[ATTR.systemInstructions] = systemInstructions(start.system);
    if (captureContent && start.input !== undefined) attributes[ATTR.inputMessages] = inputMessages(start.input);
    const name = agentName ? `${OPERATION.agent} ${agentName}` : OPERATION.agent;
    this.#root = settings.tracer.startSpan(
      name,
      { kind: SpanKind.INTERNAL, attributes, startTime: start.at },
      start.parent,
    );
    this.context = trace.setSpan(start.parent, this.#root);
    this.checks = new CheckSpans(settings, this.#root, this.#place());
    if (start.output === true) this.outputRequested();
  }

  /** What the turn's spans are made with. */
  get settings(): SpanSettings {
    return this.#settings;
  }

  /** The run's id, as every span of the turn says it. */
  get conversationId(): string {
    return this.#start.conversationId;
  }

  /**
   * The turn of the child run that call `callId` (an agent tool's) runs: its `invoke_agent` span
   * under the call's `execute_tool` span, named for the tool; the child's model is not known here,
   * so its spans name none.
   */
  childTurn(callId: string, conversationId: string): TurnSpans {
    const parent = this.toolContext(callId);
    const agentName = this.#toolNames.get(callId);
    const none = { model: undefined, maxTokens: undefined, fallbackModels: [], summarizerModel: undefined };
    const child = new TurnSpans(
      { ...this.#settings, ...none, agentName },
      { conversationId, parent, tools: new Map() },
    );
    this.#children.push(child);
    return child;
  }

  /** The context of call `callId`'s open `execute_tool` span (the turn's when it has none), for what the call runs. */
  toolContext(callId: string): Context {
    const span = this.#tools.get(callId);
    return span === undefined ? this.context : trace.setSpan(this.context, span);
  }

  /** The context a model call runs in: its `chat` span's while one is open, else the turn's. */
  get callContext(): Context {
    return this.#chat === null ? this.context : trace.setSpan(this.context, this.#chat);
  }

  /** A model call starts: the `chat` span for model call `step` (counting over the run). */
  startChat(step: number, at?: Date): void {
    // One clock for the call and the backoff measured from it: OpenTelemetry's own differs from Date's by milliseconds.
    const when = at ?? new Date();
    this.#chat?.end(when);
    const { model } = this.#settings;
    const attributes = { ...this.#base(OPERATION.chat), [ATTR.step]: step };
    const name = model ? `${OPERATION.chat} ${model}` : OPERATION.chat;
    this.#chat = this.#settings.tracer.startSpan(
      name,
      { kind: SpanKind.CLIENT, attributes, startTime: when },
      this.context,
    );
    if (this.#output) this.#chat.setAttribute(ATTR.outputType, OUTPUT_JSON);
    this.#attempt = { step, at: when, model: 0 };
  }

  /**
   * The open model call goes to model `index` (0 the run's, then the fallback models): a fallback's
   * call is named for it. When the step's last attempt failed on this same model, the time between
   * that failure and this call was the backoff, and becomes its span.
   */
  modelChosen(index: number): void {
    const chat = this.#chat;
    if (chat === null) return;
    this.#attempt = { ...this.#attempt, model: index };
    const failed = this.#failed;
    this.#failed = null;
    if (failed?.step === this.#attempt.step && failed.model === index) {
      waitSpan(this.#place(), failed.step, failed.at, this.#attempt.at);
    }
    if (index === 0) return;
    chat.setAttribute(ATTR.fallback, index);
    const name = this.#settings.fallbackModels[index - 1];
    if (name !== undefined) {
      chat.setAttribute(ATTR.requestModel, name);
      chat.updateName(`${OPERATION.chat} ${name}`);
    }
  }

  /** The turn asks for a typed answer: `gen_ai.output.type` on its span and its model calls'. */
  outputRequested(): void {
    if (this.#output) return;
    this.#output = true;
    this.#root.setAttribute(ATTR.outputType, OUTPUT_JSON);
    this.#chat?.setAttribute(ATTR.outputType, OUTPUT_JSON);
  }

  /** The open model call failed. */
  failAttempt(failure: Failure, at?: Date): void {
    const chat = this.#chat;
    if (chat === null) return;
    this.#chat = null;
    const { step, model } = this.#attempt;
    const when = at ?? new Date();
    this.#failed = { step, model, at: when };
    endFailed(chat, failure, when);
  }

  /** The messages the open model call is shown; recorded with `captureContent`. */
  chatInput(messages: readonly Message[]): void {
    if (this.#settings.captureContent) this.#chat?.setAttribute(ATTR.inputMessages, inputMessages(messages));
  }

  /** The model replied: usage, finish reason and (with `captureContent`) the reply end its `chat` span. */
  endChat(reply: ModelReply, at?: Date): void {
    const chat = this.#chat;
    if (chat === null) return;
    this.#chat = null;
    this.#lastFinish = finishReason(reply);
    chat.setAttribute(ATTR.finishReasons, [this.#lastFinish]);
    if (reply.usage !== undefined) {
      chat.setAttributes(usageAttributes(reply.usage));
      this.#usage = addUsage(this.#usage, reply.usage);
    }
    if (this.#settings.captureContent) chat.setAttribute(ATTR.outputMessages, outputMessages(reply));
    chat.end(at ?? new Date());
  }

  /** The open model call streams: its first chunk came `seconds` after the request was made. */
  firstChunk(seconds: number): void {
    this.#chat?.setAttributes({ [ATTR.stream]: true, [ATTR.timeToFirstChunk]: seconds });
  }

  /** The model call failed: its `chat` span ends with the error. */
  failChat(error: unknown, at?: Date): void {
    const chat = this.#chat;
    if (chat === null) return;
    this.#chat = null;
    recordError(chat, error);
    chat.end(at ?? new Date());
  }

  /** A tool wrote a memory: an event on its `execute_tool` span (the turn's when it has none open), the value with `captureContent`. */
  memoryWritten(write: { callId: string; scope: MemoryScope; key: string; value: string }, at?: Date): void {
    const attributes: Attributes = {
      [ATTR.toolCallId]: write.callId,
      [ATTR.memoryScope]: scopeName(write.scope),
      [ATTR.memoryKeys]: [write.key],
    };
    if (this.#settings.captureContent) attributes[ATTR.memoryValues] = [write.value];
    (this.#tools.get(write.callId) ?? this.#root).addEvent(MEMORY_WRITTEN_EVENT, attributes, at);
  }

  /** A tool call starts running: its `execute_tool` span. */
  startTool(call: ToolCall, at?: Date): void {
    const description = this.#start.tools.get(call.name);
    const attributes: Attributes = {
      [ATTR.operation]: OPERATION.tool,
      [ATTR.conversationId]: this.#start.conversationId,
      [ATTR.toolName]: call.name,
      [ATTR.toolCallId]: call.id,
      [ATTR.toolType]: "function",
      ...(description ? { [ATTR.toolDescription]: description } : {}),
    };
    if (this.#settings.captureContent) attributes[ATTR.toolArguments] = callArguments(call);
    const name = `${OPERATION.tool} ${call.name}`;
    const span = this.#settings.tracer.startSpan(
      name,
      { kind: SpanKind.INTERNAL, attributes, startTime: at },
      this.context,
    );
    this.#tools.get(call.id)?.end(at);
    this.#tools.set(call.id, span);
    this.#toolNames.set(call.id, call.name);
  }

  /**
   * A tool call's observation is known: an error sets the span's error status and
   * `error.type`. A call that was not seen starting (one the process died in, run again on
   * resume) gets a span from the turn's start.
   */
  endTool(call: ToolCall, content: string, isError: boolean, at?: Date): void {
    if (!this.#tools.has(call.id)) this.startTool(call, this.#startedAt);
    const span = this.#tools.get(call.id) as Span;
    this.#tools.delete(call.id);
    const { captureContent } = this.#settings;
    if (isError) {
      span.setAttribute(ATTR.errorType, TOOL_ERROR);
      span.setStatus({ code: SpanStatusCode.ERROR, ...(captureContent ? { message: content } : {}) });
    } else if (captureContent) {
      span.setAttribute(ATTR.toolResult, content);
    }
    span.end(at);
  }

  /** A decision on a call that needs approval, as an event on the turn's span. */
  decided(call: ToolCall, decision: Decision, at?: Date): void {
    const attributes: Attributes = {
      [ATTR.toolCallId]: call.id,
      [ATTR.toolName]: call.name,
      [ATTR.approved]: decision.approved,
    };
    if (this.#settings.captureContent && decision.reason !== undefined)
      attributes[ATTR.approvalReason] = decision.reason;
    this.#root.addEvent(APPROVAL_EVENT, attributes, at);
  }

  /** The turn ended with `outcome` (any status: a limit or a pause is an outcome, not an error). */
  end(outcome: TurnOutcome, at?: Date): void {
    if (this.#ended) return;
    const { status, answer, steps, tokens } = outcome;
    this.#root.setAttributes({ [ATTR.status]: status, [ATTR.steps]: steps, [ATTR.tokens]: tokens });
    if (outcome.cost !== undefined) this.#root.setAttribute(ATTR.cost, outcome.cost);
    if (this.#settings.captureContent && answer !== null)
      this.#root.setAttribute(ATTR.outputMessages, answerMessages(answer));
    this.#close(at);
  }

  /** The turn failed (the model, the store, a listener): the spans still open end, the turn's with the error. */
  fail(error: unknown, at?: Date): void {
    if (this.#ended) return;
    this.failChat(error, at);
    recordError(this.#root, error);
    this.#close(at);
  }

  /** The turn's log stops before its end (a paused, interrupted or still running run): the spans end there. */
  stop(at?: Date): void {
    if (!this.#ended) this.#close(at);
  }

  #close(at: Date | undefined): void {
    this.#ended = true;
    // A child whose run rejected never told its end: its spans end before the call's that holds them.
    for (const child of this.#children) child.stop(at);
    this.#chat?.end(at ?? new Date());
    this.#chat = null;
    for (const span of this.#tools.values()) span.end(at);
    this.#tools.clear();
    if (this.#usage !== null) {
      this.#root.setAttributes(usageAttributes(this.#usage));
    }
    if (this.#lastFinish !== null) this.#root.setAttribute(ATTR.finishReasons, [this.#lastFinish]);
    this.#root.end(at);
  }

  #place(): SpanPlace {
    return { tracer: this.#settings.tracer, parent: this.context, base: this.#base(OPERATION.chat) };
  }

  /** What the turn's and the model calls' spans say about the model and the run. */
  #base(operation: string): Attributes {
    const { provider, model } = this.#settings;
    return {
      [ATTR.operation]: operation,
      [ATTR.provider]: provider,
      ...(model ? { [ATTR.requestModel]: model } : {}),
      ...(this.#maxTokens === undefined ? {} : { [ATTR.maxTokens]: this.#maxTokens }),
      [ATTR.conversationId]: this.#start.conversationId,
    };
  }
}

/** A turn's usage: the sum of its model calls' (a cache count only when some call reported it). */
interface TurnUsage {
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly cachedInputTokens?: number;
  readonly cacheWriteTokens?: number;
}

function addUsage(sum: TurnUsage | null, usage: TurnUsage): TurnUsage {
  const plus = (a: number | undefined, b: number | undefined) =>
    a === undefined && b === undefined ? undefined : (a ?? 0) + (b ?? 0);
  const cachedInputTokens = plus(sum?.cachedInputTokens, usage.cachedInputTokens);
  const cacheWriteTokens = plus(sum?.cacheWriteTokens, usage.cacheWriteTokens);
  return {
    inputTokens: (sum?.inputTokens ?? 0) + usage.inputTokens,
    outputTokens: (sum?.outputTokens ?? 0) + usage.outputTokens,
    ...(cachedInputTokens === undefined ? {} : { cachedInputTokens }),
    ...(cacheWriteTokens === undefined ? {} : { cacheWriteTokens }),
  };
}
