import {
  type AgentResult,
  type AgentStream,
  continueAgent,
  type EventStore,
  type Message,
  type RunOptions,
  resumeAgent,
  runAgent,
  streamAgent,
  type ToolCall,
} from "@agentloop/core";
import { DEFAULT_SYSTEM } from "@agentloop/core/machine";
import type { StoredEvent } from "@agentloop/core/store";
import { context } from "@opentelemetry/api";
import {
  listenerFor,
  replyLimit,
  safely,
  toolDescriptions,
  tracedFallbacks,
  tracedModel,
  tracedSummarizer,
} from "./live-run.js";
import { type ChildLog, spansFromLog } from "./spans-from-log.js";
import { resolveTelemetry, type TelemetryOptions } from "./telemetry-options.js";
import { type SpanSettings, TurnSpans, type TurnStart } from "./turn-spans.js";

/**
 * Core's run functions, traced: each call is one `invoke_agent` span (a turn) with its `chat`
 * and `execute_tool` spans, ended with the result or with the error the call rejects with. Same
 * signatures, results and errors as `@agentloop/core`'s; the caller's `onEvent` still hears
 * every event. One object serves any number of runs at once.
 */
export interface AgentTelemetry {
  /** `runAgent`, traced; a run with no `runId` is given a random one, so that its spans and its log share it. */
  readonly runAgent: typeof runAgent;
  /** `streamAgent`, traced; the turn's span ends when `result` settles. */
  readonly streamAgent: typeof streamAgent;
  /** `continueAgent`, traced: the conversation's next turn, under the same `gen_ai.conversation.id`. */
  readonly continueAgent: typeof continueAgent;
  /** `resumeAgent`, traced: what is left of the run, as a turn of its own. */
  readonly resumeAgent: typeof resumeAgent;
  /**
   * Sends the spans of a logged run (a store's `read(runId)`), timed by its events' `at`: one
   * `invoke_agent` per turn, under the active context. Throws `EventLogError` for a log that does
   * not fit its run and `RangeError` for an event with no valid time, before any span is sent.
   * With `childLog`, each child run an agent tool's call ran is traced from its own log, nested
   * under that call's `execute_tool` span as a live run's is.
   */
  spansFromLog(runId: string, events: readonly StoredEvent[], childLog?: ChildLog): void;
}

/**
 * Traces agentloop runs with OpenTelemetry spans per the GenAI semantic conventions (schema
 * 1.42.0, status Development): `invoke_agent` per turn, `chat` per model call, `execute_tool`
 * per tool call run, the run id as `gen_ai.conversation.id` on each. Content only with
 * `captureContent`. Throws a `TypeError` for options that make no sense.
 */
export function agentTelemetry(options: TelemetryOptions): AgentTelemetry {
  const settings = resolveTelemetry(options);
  return {
    // The traced functions hand back core's own result, so its `output` has the type the caller's schema gives.
    runAgent: (async (task, model, registry, runOptions = {}) => {
      const run = firstTurn(settings, task, model, registry, runOptions);
      return settle(
        run.turn,
        context.with(run.turn.context, () => runAgent(task, run.model, registry, run.options)),
      );
    }) as typeof runAgent,
    streamAgent: ((task, model, registry, runOptions = {}) => {
      const run = firstTurn(settings, task, model, registry, { ...runOptions, streams: true });
      const stream: AgentStream = context.with(run.turn.context, () =>
        streamAgent(task, run.model, registry, run.options),
      );
      // The stream's own result is left to the caller; this copy only ends the span.
      settle(run.turn, stream.result).catch(() => {});
      return stream;
    }) as typeof streamAgent,
    continueAgent: (async (runId, message, model, registry, runOptions) => {
      const input: Message[] = [{ role: "user", content: message }];
      const output = runOptions?.output !== undefined;
      const turn = startTurn(settings, runId, registry, { input, maxTokens: replyLimit(model), output });
      const traced = laterTurnOptions(turn, model, runOptions);
      const run = tracedModel(model, turn, runOptions?.onEvent !== undefined);
      return settle(
        turn,
        context.with(turn.context, () => continueAgent(runId, message, run, registry, traced)),
      );
    }) as typeof continueAgent,
    resumeAgent: (async (runId, model, registry, runOptions) => {
      const turn = startTurn(settings, runId, registry, { maxTokens: replyLimit(model) });
      const traced = laterTurnOptions(turn, model, runOptions, await loggedCalls(runOptions?.store, runId));
      const run = tracedModel(model, turn, runOptions?.onEvent !== undefined);
      return settle(
        turn,
        context.with(turn.context, () => resumeAgent(runId, run, registry, traced)),
      );
    }) as typeof resumeAgent,
    spansFromLog: (runId, events, childLog) => spansFromLog(settings, runId, events, context.active(), childLog),
  };
}

type RunArgs = Parameters<typeof runAgent>;

/**
 * A new run's first turn: its span, the model that traces its calls, and the options that carry
 * the run's id (a random one when none is given) and the listener that feeds the spans.
 */
function firstTurn(
  settings: SpanSettings,
  task: unknown,
  model: RunArgs[1],
  registry: RunArgs[2],
  { streams = false, ...options }: RunOptions & { readonly streams?: boolean },
) {
  const runId = options.runId ?? globalThis.crypto.randomUUID();
  const { system = DEFAULT_SYSTEM, history = [] } = options;
  const input: Message[] | undefined =
    typeof task === "string" && Array.isArray(history) ? [...history, { role: "user", content: task }] : undefined;
  const output = options.output !== undefined;
  const turn = startTurn(settings, runId, registry, { system, input, maxTokens: replyLimit(model), output });
  const traces = streams || options.onEvent !== undefined;
  const { compaction, fallbackModels } = options;
  return {
    turn,
    model: tracedModel(model, turn, traces),
    options: {
      ...options,
      runId,
      onEvent: listenerFor(turn, options.onEvent),
      ...(fallbackModels === undefined ? {} : { fallbackModels: tracedFallbacks(fallbackModels, turn, traces) }),
      // The summarizer is the run's model unless given; it is traced as the summarizer either way.
      ...(typeof compaction === "object" && compaction !== null
        ? { compaction: { ...compaction, summarizer: tracedSummarizer(compaction.summarizer ?? model, turn) } }
        : {}),
    },
  };
}

type LaterOptions = Parameters<typeof resumeAgent>[3];

/** A later turn's options (`resumeAgent`'s, `continueAgent`'s), with its listener, fallback models and summarizer traced. */
function laterTurnOptions<O extends LaterOptions>(
  turn: TurnSpans,
  model: RunArgs[1],
  options: O,
  known: readonly ToolCall[] = [],
): O {
  const traces = options?.onEvent !== undefined;
  const summarizer = options?.summarizer ?? options?.compaction?.summarizer ?? model;
  return {
    ...options,
    onEvent: listenerFor(turn, options?.onEvent, known),
    ...(options?.fallbackModels === undefined
      ? {}
      : { fallbackModels: tracedFallbacks(options.fallbackModels, turn, traces) }),
    ...(typeof summarizer === "function" ? { summarizer: tracedSummarizer(summarizer, turn) } : {}),
  };
}

type Given = Pick<TurnStart, "system" | "input" | "maxTokens" | "output">;

function startTurn(settings: SpanSettings, runId: unknown, registry: RunArgs[2], given: Given): TurnSpans {
  const start = { conversationId: String(runId), parent: context.active(), tools: toolDescriptions(registry) };
  return new TurnSpans(settings, { ...start, ...given });
}

/** The call's result or error, after ending the turn's span with it. */
function settle(turn: TurnSpans, run: Promise<AgentResult>): Promise<AgentResult> {
  return run.then(
    (result) => {
      safely(() => turn.end(result), undefined);
      return result;
    },
    (error: unknown) => {
      safely(() => turn.fail(error), undefined);
      throw error;
    },
  );
}

/**
 * The calls a run's log shows the model asked for: a resumed run runs a call its process died in
 * again without a start to tell, and its span is named for the call all the same. None when the
 * log cannot be read (the run then refuses to resume with the store's own error).
 */
async function loggedCalls(store: EventStore | undefined, runId: unknown): Promise<ToolCall[]> {
  try {
    const events = typeof runId === "string" ? ((await store?.read(runId)) ?? []) : [];
    return events.flatMap((event) => (event.type === "model.replied" ? event.reply.toolCalls : []));
  } catch {
    return [];
  }
}
