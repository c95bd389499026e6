import type { AgentStreamEvent, EventOrigin, Message, Model, ToolCall, ToolRegistry } from "@agentloop/core";
import { copyReply, describeThrown, type ModelCallOptions } from "@agentloop/core/adapter";
import { context, diag } from "@opentelemetry/api";
import { INVALID_REPLY, thrownFailure } from "./attempt-spans.js";
import { LoggedSpans } from "./logged-spans.js";
import { isTokenCount } from "./telemetry-options.js";
import type { TurnSpans } from "./turn-spans.js";

/**
 * Runs `work` so that tracing never breaks a run: a failure of ours is reported through
 * OpenTelemetry's diagnostic logger, never thrown into the run.
 */
export function safely<T>(work: () => T, fallback: T): T {
  try {
    return work();
  } catch (error) {
    diag.error("@agentloop/otel: could not record a span", error);
    return fallback;
  }
}

type Listener = (event: AgentStreamEvent) => void;

/**
 * The run's listener: feeds the turn's spans from the run's events, then hands each event to the
 * caller's own listener. A listener that is not a function is passed on as it is, so that the
 * run refuses it with its usual error. `known`: the calls the run's log shows asked for before
 * (a resumed run runs a call its process died in again without telling its start).
 */
export function listenerFor(
  turn: TurnSpans,
  listener: Listener | undefined,
  known: readonly ToolCall[] = [],
): Listener {
  if (listener !== undefined && typeof listener !== "function") return listener;
  const own = listener;
  const settings = turn.settings;
  const root = new LoggedSpans(settings, { kind: "live", turn, summaryStart });
  for (const call of known) root.know(call);
  const children = new Map<string, LoggedSpans>();
  return (event) => {
    safely(() => followTree(root, children, event), undefined);
    own?.(event);
  };
}

/**
 * Feeds an event to the spans of the run it comes from: the listening run's own, or a child's
 * (by its `origin`), whose turn starts under its call's `execute_tool` span at its first event
 * and ends with its `finished`.
 */
function followTree(root: LoggedSpans, children: Map<string, LoggedSpans>, event: AgentStreamEvent): void {
  const { origin } = event;
  if (origin === undefined) {
    follow(root, event);
    return;
  }
  const child = childOf(root, children, origin);
  if (event.type !== "finished") {
    follow(child, event);
    return;
  }
  child.turn?.end(event.result);
  children.delete(origin.callPath.join("/"));
}

/** The spans of the child at `origin`, and of each run between, started when first heard of. */
function childOf(root: LoggedSpans, children: Map<string, LoggedSpans>, origin: EventOrigin): LoggedSpans {
  let above = root;
  origin.callPath.forEach((callId, index) => {
    const key = origin.callPath.slice(0, index + 1).join("/");
    const deepest = index === origin.callPath.length - 1;
    const turn = above.turn as TurnSpans;
    // A run between is named as core names a child run (`<parent>.<call>`): only the deepest run's id comes with the event.
    const runId = deepest && origin.runId !== undefined ? origin.runId : `${turn.conversationId}.${callId}`;
    const found = children.get(key) ?? childSpans(turn, callId, runId);
    children.set(key, found);
    above = found;
  });
  return above;
}

function childSpans(turn: TurnSpans, callId: string, runId: string): LoggedSpans {
  const child = turn.childTurn(callId, runId);
  return new LoggedSpans(child.settings, { kind: "live", turn: child, summaryStart });
}

/** A live run's event: what is logged is folded as a log's event is; the rest starts what the log ends. */
function follow(spans: LoggedSpans, event: AgentStreamEvent): void {
  const { turn } = spans;
  switch (event.type) {
    case "logged":
      spans.take(event.event);
      break;
    case "step-started":
      turn?.startChat(event.step);
      break;
    case "decision-requested":
      spans.know(event.call);
      break;
    case "guardrail-started":
      turn?.checks.guardrailStarted(event.stage, event.name);
      break;
  }
}

/** The summarizer's call in progress or just answered, per turn: when it was made. */
const summaries = new WeakMap<TurnSpans, Date>();

/** When the summarizer was called for the compaction just logged, forgotten once read. */
function summaryStart(turn: TurnSpans): Date | undefined {
  const at = summaries.get(turn);
  summaries.delete(turn);
  return at;
}

/**
 * The summarizer, traced: the time of its call and the tokens its reply took, for the `chat` span
 * the turn records once the compaction is logged. Called in the turn's context, with no `chat`
 * span of the run's model open.
 */
export function tracedSummarizer<M extends Model>(summarizer: M, turn: TurnSpans): M {
  if (typeof summarizer !== "function") return summarizer;
  return new Proxy(summarizer, {
    apply(target, self, args: Parameters<Model>) {
      summaries.set(turn, new Date());
      return context.with(turn.context, () => Reflect.apply(target, self, args));
    },
  });
}

/**
 * The model, called with its `chat` span as the active context (so that the spans of the
 * provider's HTTP client nest under it), recording the list it is shown and the error it
 * throws. Every property of the model (`maxReplyTokens`, a scripted model's `seen`) stays as
 * it is. Unless someone listens to deltas (`streams`), the model is not asked to stream: the
 * listener tracing adds must not change how the provider is called.
 */
export function tracedModel<M extends Model>(model: M, turn: TurnSpans, streams: boolean, index = 0): M {
  if (typeof model !== "function") return model;
  return new Proxy(model, {
    apply(target, self, args: Parameters<Model>) {
      const [messages, tools, options] = args;
      safely(() => {
        turn.modelChosen(index);
        if (options?.output !== undefined) turn.outputRequested();
        turn.chatInput(messages as readonly Message[]);
      }, undefined);
      const given = streams || options === undefined ? options : withoutDeltas(options);
      const called = performance.now();
      const traced = given?.onDelta === undefined ? given : noticingFirstChunk(given, turn, called);
      return context.with(turn.callContext, async () => {
        let reply: Awaited<ReturnType<Model>>;
        try {
          reply = await Reflect.apply(target, self, [messages, tools, traced]);
        } catch (error) {
          safely(() => turn.failAttempt(thrownFailure(error, describeThrown)), undefined);
          throw error;
        }
        // Read once, here, as the run reads a reply (a getter is not read twice): the run gets the
        // checked copy, and a reply it cannot use fails the call as the run words it.
        const copy = safely(() => copyReply(reply), null);
        if (typeof copy !== "string") return copy ?? reply;
        safely(() => turn.failAttempt({ type: "ModelError", message: `${INVALID_REPLY}: ${copy}` }), undefined);
        return reply;
      });
    },
  });
}

/** The options without `onDelta`; the signal is read only if the model reads it, as the run intends. */
function withoutDeltas(options: ModelCallOptions): ModelCallOptions {
  return {
    get signal() {
      return options.signal;
    },
  };
}

/**
 * The options with an `onDelta` that marks the call as streamed at its first delta, with the
 * seconds since the request: a model asked to stream may not, and only one that does is reported so.
 */
function noticingFirstChunk(options: ModelCallOptions, turn: TurnSpans, called: number): ModelCallOptions {
  const { onDelta } = options;
  let first = true;
  return {
    get signal() {
      return options.signal;
    },
    onDelta: (delta) => {
      if (first) {
        first = false;
        safely(() => turn.firstChunk((performance.now() - called) / 1000), undefined);
      }
      onDelta?.(delta);
    },
  };
}

/** The reply limit a model says it has (the adapters' `maxReplyTokens`), if it says one. */
export function replyLimit(model: unknown): number | undefined {
  if (typeof model !== "function") return undefined;
  const limit: unknown = (model as { maxReplyTokens?: unknown }).maxReplyTokens;
  return isTokenCount(limit) ? limit : undefined;
}

/** Tool descriptions by name, from the registry the run is given (none if it is not a registry). */
export function toolDescriptions(registry: ToolRegistry): ReadonlyMap<string, string> {
  return safely(() => new Map(registry.specs().map((spec) => [spec.name, spec.description])), new Map());
}

/** The run's fallback models, each traced with its place (1 the first), when they are a list. */
export function tracedFallbacks<T>(models: T, turn: TurnSpans, streams: boolean): T {
  if (!Array.isArray(models)) return models;
  return models.map((model: Model, index) => tracedModel(model, turn, streams, index + 1)) as T;
}
