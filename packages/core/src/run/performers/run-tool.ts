import type { MemoryScope, MemoryWritten, ToolCall, ToolOutcome } from "../../data/index.js";
import { type AgentEvent, toolFinished } from "../../data/index.js";
import type { ExecuteOptions, ToolRegistry } from "../../tools/index.js";
import { DEFAULT_MAX_RESULT_CHARS } from "../../tools/index.js";
import { answerOf, type EventAnswer } from "./event-answer.js";
import { ToolAsking } from "./tool-asking.js";

/** Milliseconds a tool may take when neither the run nor the tool says. */
export const DEFAULT_TOOL_TIMEOUT_MS = 60_000;

/** The event that answers a `runTool` request. */
export type ToolFinished = Extract<AgentEvent, { type: "tool.finished" }>;

/** The event that answers a `runTool` request whose tool asked a question nobody had answered yet. */
export type ToolAskedEvent = Extract<AgentEvent, { type: "tool.asked" }>;

/**
 * What running a call came to: a `tool.finished` event (the tool's result, its failure told to the
 * model as an `ERROR:` observation — invalid arguments, a throw, a timeout — or the lost-result
 * observation for a call cut off earlier that may not run again), or `tool.asked` for a question.
 */
export type ToolAnswer = EventAnswer<ToolFinished> | EventAnswer<ToolAskedEvent>;

/** How a call is run: the run's signal and the limits for tools that set none of their own. */
export interface RunToolOptions {
  /** Read only when the tool reads its own signal (a getter keeps it lazy). */
  readonly signal?: AbortSignal | undefined;
  /** Milliseconds a tool may take unless it sets its own `timeoutMs` (default 60,000). */
  readonly toolTimeoutMs?: number | undefined;
  /** Observations longer than this are cut unless the tool sets its own limit (default 8,000). */
  readonly maxResultChars?: number | undefined;
  /** The log shows the call started and never finished: it runs again only if `mayRunAgain`, else its result is lost. */
  readonly interrupted?: boolean | undefined;
}

/** What one attempt of a call brings besides the run's options (each absent: none). */
export interface ToolAttempt {
  /** The answers to the questions the call asked in its earlier attempts, in order. */
  readonly answers?: readonly unknown[] | undefined;
  /** The call's `note`, and what its earlier attempts noted. */
  readonly notes?: ExecuteOptions["notes"];
  /** The run's memory scope: where a memory tool made with no scope of its own reads and writes. */
  readonly memoryScope?: MemoryScope | undefined;
}

const FIRST_ATTEMPT: ToolAttempt = Object.freeze({});
const NO_ANSWERS: readonly unknown[] = Object.freeze([]);

/**
 * Runs one call through the registry (its argument checks, the timeout, the cut) and answers with
 * its `tool.finished` event; or, when its tool asks a question past the attempt's `answers`, with
 * `tool.asked` at once, its result dropped. Never rejects: whatever the tool does is an observation
 * for the model.
 */
export async function runTool(
  registry: ToolRegistry,
  call: ToolCall,
  options: RunToolOptions = {},
  attempt: ToolAttempt = FIRST_ATTEMPT,
): Promise<ToolAnswer> {
  const { answers = NO_ANSWERS, notes, memoryScope } = attempt;
  if (options.interrupted === true && !mayRunAgain(registry, call)) {
    return answerOf(toolFinished(call.id, lostResult(call), "lost"));
  }
  // What answers the tool's questions is made only when it reads its ask or its signal, or has
  // answers to be given: most tools do neither, and making it cost more than a small tool's call.
  let asking: ToolAsking | undefined;
  let stop: ((ended: null) => void) | undefined;
  const askingOf = () => {
    asking ??= new ToolAsking(call, answers, () => stop?.(null));
    return asking;
  };
  if (answers.length > 0) askingOf();
  const ran = registry.executeCall(call, {
    get signal() {
      const { signal } = options;
      const own = askingOf().signal;
      return signal === undefined ? own : AbortSignal.any([signal, own]);
    },
    timeoutMs: options.toolTimeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS,
    maxResultChars: options.maxResultChars ?? DEFAULT_MAX_RESULT_CHARS,
    ask: (question, schema) => askingOf().ask(question, schema),
    ...(notes === undefined ? {} : { notes }),
    memoryScope,
  });
  // The call's outcome, or null once it asked past its answers: the attempt is over then, whatever the tool does next.
  const ended = await new Promise<ToolOutcome | null>((resolve) => {
    stop = resolve;
    if (asking?.asked == null) ran.then(resolve);
    else resolve(null);
  });
  const asked = asking?.asked ?? null;
  if (asked !== null) return answerOf(asked);
  const { kind, content } = ended as ToolOutcome;
  const observation = asking === undefined ? content : asking.noted(content);
  if (kind !== "ok") return answerOf(toolFinished(call.id, observation, kind));
  const finished = answerOf(toolFinished(call.id, observation));
  const performer = registry.performerOf(call.name);
  // A write that succeeded had a scope: its tool's own, or the run's.
  const scope = performer?.kind === "memory-write" ? (performer.scope ?? memoryScope) : undefined;
  return scope === undefined ? finished : { ...finished, preceding: [memoryWritten(call, scope)] };
}

/** The write a memory tool's call made, from its arguments (the registry checked them: a key and a value, strings). */
function memoryWritten(call: ToolCall, scope: MemoryScope): MemoryWritten {
  const args = (call.rawArgs === undefined ? call.args : JSON.parse(call.rawArgs)) as { key: string; value: string };
  return { type: "memory.written", callId: call.id, scope, key: args.key, value: args.value };
}

/** Whether a call whose run was cut off may run again: its tool is idempotent, or the call is invalid and runs nothing. */
export function mayRunAgain(registry: ToolRegistry, call: ToolCall): boolean {
  return registry.isIdempotent(call.name) || !registry.wouldRun(call);
}

/** What the model is told of a call whose run was cut off and that may not run again. */
export function lostResult(call: ToolCall): string {
  return (
    `ERROR: the result of ${call.name} was lost: the run was interrupted while it ran, so it may or may not ` +
    "have taken effect. Check its effect before you call it again."
  );
}
