import {
  checkHistory,
  checkReply,
  END_STATUSES,
  type EndStatus,
  EVENT_LOG_SCHEMA_VERSION,
  isCount,
  isHeldContent,
  isPlainObject,
  isPrincipal,
  isReadableSchema,
  type LogFlags,
  logFlags,
  type Message,
  RUN_EVENT_TYPES,
  type RunEvent,
  type StoredEvent,
  scopeProblem,
  TOOL_FAILURES,
  type ToolFailure,
} from "../data/index.js";
import { type BlobSource, blobRefsOf, loggedEvent, restoreBlobs } from "./blobs.js";
import { EventLogError } from "./event-log-error.js";
import { handoffProblem, handoffSettingsProblem } from "./handoff-checks.js";
import { chainHash, isChainHash, runHashSeed } from "./log-hash.js";

// The stores read the log's types from here.
export type { RunOutcome, StoredEvent } from "../data/index.js";

/**
 * The event at `seq`, stamped with the time `at` and, from schema 2 on, chained to the event before
 * by its hash. The hash covers the event as logged: a part's bytes by their blob reference.
 */
export function stampEvent(event: RunEvent, seq: number, at: string, previousHash: string | null): StoredEvent {
  // The stamps lead each line (readable logs) and always win over any the event carries.
  const stamped = Object.assign({ seq, at }, event, { seq, at });
  if (previousHash === null) return stamped;
  return { ...stamped, hash: chainHash(previousHash, JSON.stringify(loggedEvent(stamped).event)) };
}

/** Why an event does not chain, naming the blobs it refers to (a reference changed is a changed event). */
function tampered(stored: Record<string, unknown>): string {
  const refs = blobRefsOf(stored).map(({ ref }) => `sha256:${ref.sha256}`);
  const named = refs.length === 0 ? "" : ` (it refers to blob ${refs.join(", ")})`;
  return `does not match its hash${named}: it was changed after it was written, an event before it is missing or out of place, or it comes from another run's log`;
}

/** The hash the next event of a log chains to: the last event's, or the run's seed for an empty log; null for schema 1. */
export function chainTip(runId: string, events: readonly StoredEvent[]): string | null {
  const [first] = events;
  if (first?.type === "run.anchored") return events.at(-1)?.hash ?? null;
  if (first !== undefined && (first.type !== "run.started" || !logFlags(first.schemaVersion).hashChain)) return null;
  return events.at(-1)?.hash ?? runHashSeed(runId);
}

/**
 * Checks values read from a store and returns them as events, or throws an `EventLogError` that
 * names the run and the first bad position and keeps the valid events before it in `intact`. It
 * checks shapes, numbering and, from schema 2 on, the hash chain (which also proves the events
 * belong to run `runId`); whether the events fit the machine is `replayRun`'s job. A store must
 * hand back each event with its keys in the order they were written, as a JSON round trip does.
 * Events are given as logged: a part's bytes by reference are read from `blobs` and checked
 * against their hash (a blob missing or changed is refused as a changed event is).
 */
export function parseEventLog(runId: string, values: readonly unknown[], blobs?: BlobSource): StoredEvent[] {
  const events: StoredEvent[] = [];
  let flags: LogFlags | undefined;
  let previousHash = runHashSeed(runId);
  const known = new Map<string, string>();
  for (const [position, stored] of values.entries()) {
    const fail = (problem: string) =>
      new EventLogError(`run '${runId}': event ${position} ${problem}`, { runId, position, intact: events });
    let value = stored;
    if (isPlainObject(stored)) {
      const restored = restoreBlobs(stored, blobs, known);
      // A reference changed in the event is a changed event: the chain says so before the blob is looked for.
      if ("problem" in restored) throw fail(brokenChain(stored, previousHash) ? tampered(stored) : restored.problem);
      value = restored.event;
    }
    const problem = eventProblem(value, position);
    if (problem !== null) throw fail(problem);
    const event = value as StoredEvent;
    if (event.type === "run.started") flags = logFlags(event.schemaVersion);
    if (event.type === "run.anchored") {
      flags = logFlags(event.started.schemaVersion);
      const problem = anchorChainProblem(runId, (stored as Record<string, unknown>).started, flags);
      if (problem !== null) throw fail(problem);
      previousHash = event.tip;
    }
    if (flags?.hashChain) {
      const { hash, ...rest } = stored as Record<string, unknown>;
      if (!isChainHash(hash)) throw fail("has no hash (every event of a schema-2 log has one)");
      // A store that keeps no blobs logs the bytes inline: the hash covers them by reference all the same.
      if (
        hash !== chainHash(previousHash, JSON.stringify(rest)) &&
        hash !== chainHash(previousHash, JSON.stringify(loggedEvent(rest).event))
      ) {
        throw fail(tampered(stored as Record<string, unknown>));
      }
      previousHash = hash;
    } else if (event.type === "user.messaged" && !flags?.conversations) {
      throw fail("is not part of schema 1");
    }
    if ((event.type === "model.failed" || event.type === "retry.waited") && !flags?.retriedModelCalls) {
      throw fail(`is not part of schema ${(events[0] as Extract<StoredEvent, { type: "run.started" }>).schemaVersion}`);
    }
    if (isChildLink(event) && !flags?.childRuns) {
      throw fail(`names a child run, which is not part of schema ${flags === undefined ? "?" : "before 4"}`);
    }
    if ((event.type === "output.checked" || event.type === "guardrail.checked") && !flags?.turnChecks) {
      throw fail(`is not part of schema ${flags === undefined ? "?" : "before 4"}`);
    }
    events.push(decodeEvent(event));
  }
  return events;
}

/**
 * Why an anchor's `run.started` (as logged) is not the run's own, or null: it must be of a log with
 * a hash chain, and its hash must chain to the run's seed, which proves it was this run's start.
 */
function anchorChainProblem(runId: string, started: unknown, flags: LogFlags): string | null {
  if (!flags.hashChain) return "anchors a log of schema 1, which has no hash chain";
  const { hash, ...rest } = started as Record<string, unknown>;
  const seed = runHashSeed(runId);
  if (
    hash === chainHash(seed, JSON.stringify(rest)) ||
    hash === chainHash(seed, JSON.stringify(loggedEvent(rest).event))
  ) {
    return null;
  }
  return "keeps a run.started that does not match its hash: it was changed, or it is another run's";
}

/** Whether a logged event carries a hash that does not chain to `previousHash`. */
function brokenChain(stored: Record<string, unknown>, previousHash: string): boolean {
  const { hash, ...rest } = stored;
  return isChainHash(hash) && hash !== chainHash(previousHash, JSON.stringify(rest));
}

function eventProblem(value: unknown, position: number): string | null {
  if (!isPlainObject(value)) return "is not a JSON object";
  if (value.seq !== position) return `has seq ${JSON.stringify(value.seq)}, expected ${position}`;
  if (typeof value.at !== "string") return "has no 'at' timestamp";
  if (position === 0 && value.type !== "run.started" && value.type !== "run.anchored") {
    return "must be 'run.started' (or 'run.anchored', where retain dropped a finished run's events)";
  }
  if (position > 0 && value.type === "run.started") return "repeats 'run.started'";
  if (position > 0 && value.type === "run.anchored") return "is a 'run.anchored' after the start of the log";
  switch (value.type) {
    case "run.started":
      return runStartedProblem(value);
    case "run.anchored":
      return anchoredProblem(value);
    case "model.replied": {
      const reply = checkReply(value.reply);
      if (typeof reply === "string") return `holds an invalid reply: ${reply}`;
      return isOptional(value.model, isCount) ? null : "has a model that is not a whole number";
    }
    case "model.failed":
      return isString(value.error) &&
        typeof value.retryable === "boolean" &&
        isCount(value.model) &&
        isOptional(value.retryAfterMs, isCount)
        ? null
        : "needs an error string, a retryable boolean, a whole model and an optional whole retryAfterMs";
    case "retry.waited":
      return isOptional(value.delayMs, isCount) ? null : "has a delayMs that is not a whole number";
    case "tool.started":
      if (!isString(value.callId) || !isString(value.name)) return "needs callId and name strings";
      return isOptional(value.childRunId, isString) ? null : "has a childRunId that is not a string";
    case "tool.finished":
      if (!isString(value.callId) || !isHeldContent(value.content)) {
        return "needs a callId string and a content string or list of content parts";
      }
      if (!isOptional(value.childRunId, isString) || !isOptional(value.tokens, isCount)) {
        return "has a childRunId that is not a string or tokens that are not a whole number";
      }
      if (!isOptional(value.cost, isAmount) || !isOptional(value.unpriced, isNames)) {
        return "has a cost that is not a number of USD, 0 or more, or unpriced that is not a list of names";
      }
      if (!isOptional(value.isError, (flag) => flag === true)) return "has an isError that is not true";
      return isOptional(value.failure, (failure) => value.isError === true && isToolFailure(failure))
        ? null
        : `has a failure without isError, or not one of ${TOOL_FAILURES.join(", ")}`;
    case "approval.decided":
      return isString(value.callId) && typeof value.approved === "boolean" && isOptional(value.reason, isString)
        ? null
        : "needs a callId string, an approved boolean and an optional reason string";
    case "run.cancelled":
      return isOptional(value.reason, isString) ? null : "has a reason that is not a string";
    case "run.finished":
      return outcomeProblem(value.outcome);
    case "user.messaged":
      if (!isHeldContent(value.content)) return "needs a content string or list of content parts";
      return value.turn === undefined ? null : turnProblem(value.turn, "turn.");
    case "context.compacted":
      return compactedProblem(value);
    case "output.checked":
      if (value.valid === true) return "value" in value ? null : "needs the checked value";
      return value.valid === false && isString(value.problem)
        ? null
        : "needs valid: true with a value, or valid: false with a problem string";
    case "guardrail.checked":
      return (value.stage === "input" || value.stage === "output") &&
        isCount(value.index) &&
        isString(value.name) &&
        typeof value.tripped === "boolean" &&
        isOptional(value.reason, isString)
        ? null
        : "needs a stage ('input' or 'output'), a whole index, a name, a tripped boolean and an optional reason string";
    case "step.prepared":
      return stepPreparedProblem(value);
    case "question.answered":
      return isString(value.callId) && "answer" in value ? null : "needs a callId string and an answer";
    case "tool.asked":
      return isString(value.callId) && isString(value.question) && isOptional(value.schema, isPlainObject)
        ? null
        : "needs callId and question strings and an optional schema object";
    case "tool.paused":
      return pausedProblem(value);
    case "tool.resumed":
      return isString(value.callId) ? null : "needs a callId string";
    case "handoff":
      return handoffProblem(value);
    case "tool.noted":
      return isString(value.callId) && "note" in value ? null : "needs a callId string and a note";
    case "ceiling.reached":
      return (value.window === "day" || value.window === "month") &&
        isAmount(value.limit) &&
        isAmount(value.spent) &&
        isAmount(value.reserve)
        ? null
        : "needs a window ('day' or 'month') and a limit, spent and reserve in USD, 0 or more";
    case "memory.recalled":
      if (scopeProblem(value.scope) !== null || !isString(value.query))
        return "needs a memory scope and a query string";
      return Array.isArray(value.hits) && value.hits.every(isMemoryHit)
        ? null
        : "needs hits, a list of { key, value, score } with strings and a finite score";
    case "memory.written":
      return isString(value.callId) &&
        scopeProblem(value.scope) === null &&
        isString(value.key) &&
        isString(value.value)
        ? null
        : "needs a callId string, a memory scope, and key and value strings";
    default:
      return `has an unknown type ${JSON.stringify(value.type)} (known: ${RUN_EVENT_TYPES.join(", ")})`;
  }
}

function anchoredProblem(value: Record<string, unknown>): string | null {
  const { started, state } = value;
  if (!isPlainObject(started) || started.type !== "run.started" || started.seq !== 0 || !isString(started.at)) {
    return "needs the run's run.started, as logged, in started";
  }
  const problem = runStartedProblem(started);
  if (problem !== null) return `keeps a run.started that ${problem}`;
  if (!isCount(value.events) || (value.events as number) < 1 || !isCount(value.turns) || (value.turns as number) < 1) {
    return "needs whole events and turns, 1 or more";
  }
  if (!isString(value.lastAt) || !isChainHash(value.tip)) return "needs a lastAt timestamp and the tip hash";
  const outcome = outcomeProblem(value.outcome);
  if (outcome !== null) return outcome;
  if (!isPlainObject(state) || !isPlainObject(state.context)) return "needs a state with messages and a context object";
  const [system, ...rest] = Array.isArray(state.messages) ? state.messages : [];
  if (!isPlainObject(system) || system.role !== "system" || !isString(system.content)) {
    return "has a state whose messages do not start with the system message";
  }
  const messages = checkHistory(rest);
  return typeof messages === "string" ? `has a state whose messages are not a message list: ${messages}` : null;
}

function isMemoryHit(value: unknown): boolean {
  return (
    isPlainObject(value) &&
    isString(value.key) &&
    isString(value.value) &&
    typeof value.score === "number" &&
    Number.isFinite(value.score)
  );
}

function pausedProblem(value: Record<string, unknown>): string | null {
  const { callId, pending, questions } = value;
  if (!isString(callId) || !Array.isArray(pending) || !Array.isArray(questions)) {
    return "needs a callId string and lists of pending calls and questions";
  }
  if (!pending.every(isWaitingCall)) return "has a pending call without id and name strings and an args object";
  if (!questions.every(isWaitingQuestion)) return "has a question without id and question strings";
  return pending.length + questions.length > 0 ? null : "lists nothing that waits";
}

function isWaitingCall(value: unknown): boolean {
  return (
    isPlainObject(value) &&
    isString(value.id) &&
    isString(value.name) &&
    isPlainObject(value.args) &&
    isOptional(value.rawArgs, isString)
  );
}

function isWaitingQuestion(value: unknown): boolean {
  return (
    isPlainObject(value) && isString(value.id) && isString(value.question) && isOptional(value.schema, isPlainObject)
  );
}

function stepPreparedProblem(value: Record<string, unknown>): string | null {
  if (!isCount(value.step)) return "needs a whole step";
  if (!isOptional(value.activeTools, isNames)) return "has activeTools that are not a list of tool names";
  if (!isOptional(value.toolChoice, isToolChoice)) {
    return "has a toolChoice that is not 'auto', 'required', 'none' or { name }";
  }
  if (!isOptional(value.model, isString) || !isOptional(value.system, isString)) {
    return "has a model or system that is not a string";
  }
  return isOptional(value.reserve, isAmount) ? null : "has a reserve that is not a number of tokens";
}

function isToolFailure(value: unknown): boolean {
  return TOOL_FAILURES.includes(value as ToolFailure);
}

function isToolChoice(value: unknown): boolean {
  if (value === "auto" || value === "required" || value === "none") return true;
  return isPlainObject(value) && isString(value.name);
}

/** Whether an event links runs of a tree (a child's start, a call that ran a child, paused in it or resumed). */
function isChildLink(event: StoredEvent): boolean {
  if (event.type === "run.started") return event.parent !== undefined;
  if (event.type === "tool.paused" || event.type === "tool.resumed") return true;
  return (event.type === "tool.started" || event.type === "tool.finished") && event.childRunId !== undefined;
}

function compactedProblem(value: Record<string, unknown>): string | null {
  if (!isCount(value.step) || !isCount(value.keptFrom)) return "needs whole step and keptFrom";
  if (!isOptional(value.summary, isString)) return "has a summary that is not a string";
  const usage = value.usage;
  return isOptional(usage, isUsage) ? null : "has a usage without whole inputTokens and outputTokens";
}

function outcomeProblem(outcome: unknown): string | null {
  if (!isPlainObject(outcome)) return "needs an outcome";
  const { status, answer, steps, tokens, tokensOverBudget } = outcome;
  if (!END_STATUSES.includes(status as EndStatus)) {
    return `has an outcome with an unknown status ${JSON.stringify(status)}`;
  }
  if (!(answer === null || isString(answer)) || !isCount(steps) || !isCount(tokens)) {
    return "needs an outcome with an answer (string or null) and whole steps and tokens";
  }
  if (!isOptional(outcome.cost, isAmount)) return "has an outcome whose cost is not a number of USD, 0 or more";
  if (!isOptional(outcome.costOverBudget, isAmount)) {
    return "has an outcome whose costOverBudget is not a number of USD, 0 or more";
  }
  return isOptional(tokensOverBudget, isCount) ? null : "has an outcome whose tokensOverBudget is not a whole number";
}

function runStartedProblem(value: Record<string, unknown>): string | null {
  const version = value.schemaVersion;
  if (typeof version !== "number") return "has no schemaVersion";
  if (version > EVENT_LOG_SCHEMA_VERSION) {
    return `was written with schema version ${version}; this agentloop reads up to ${EVENT_LOG_SCHEMA_VERSION}: upgrade it to read this log`;
  }
  if (!isReadableSchema(version)) return `has unsupported schema version ${version}`;
  if (value.forkedFrom !== undefined) {
    const from = value.forkedFrom;
    if (!isPlainObject(from) || !isString(from.runId) || !isCount(from.seq)) return "has a bad forkedFrom";
  }
  if (value.parent !== undefined) {
    const parent = value.parent;
    if (!isPlainObject(parent) || !isString(parent.runId) || !isString(parent.callId)) return "has a bad parent";
  }
  if (value.owner !== undefined && !isPrincipal(value.owner)) {
    return "has an owner that is not { tenant, user? } with a non-empty tenant";
  }
  const settings = value.settings;
  if (!isPlainObject(settings)) return "has no settings";
  const { task, system, maxSteps, tokenBudget, tools } = settings;
  if (!isHeldContent(task) || !isString(system)) {
    return "needs settings.task (a string or a list of content parts) and a settings.system string";
  }
  if (!isCount(maxSteps)) return "needs a whole settings.maxSteps";
  // JSON has no Infinity: an unlimited budget is logged as null.
  if (tokenBudget !== null && !isAmount(tokenBudget)) return "needs settings.tokenBudget";
  if (!Array.isArray(tools) || !tools.every(isToolSpec)) return "needs settings.tools, a list of tool specs";
  const { approvalRequired, idempotentTools, repeatableTools, repeatLimit, onRepeatedCall, replyReserve } = settings;
  for (const [name, names] of Object.entries({ approvalRequired, idempotentTools, repeatableTools })) {
    if (!isOptional(names, isNames)) return `needs settings.${name} to be a list of tool names`;
  }
  if (!isOptional(repeatLimit, (limit) => limit === null || (isCount(limit) && limit >= 1))) {
    return "needs settings.repeatLimit to be a whole number, 1 or more";
  }
  if (!isOptional(onRepeatedCall, (policy) => policy === "refuse" || policy === "stop")) {
    return "needs settings.onRepeatedCall to be 'refuse' or 'stop'";
  }
  if (!isOptional(replyReserve, isAmount)) return "needs settings.replyReserve to be a number of tokens";
  if (!isOptional(settings.fallbackReserves, (list) => Array.isArray(list) && list.every(isAmount))) {
    return "needs settings.fallbackReserves to be a list of numbers of tokens";
  }
  if (!isOptional(settings.summaryReserve, isAmount)) return "needs settings.summaryReserve to be a number of tokens";
  if (!isOptional(settings.countUsage, (flag) => typeof flag === "boolean")) {
    return "needs settings.countUsage to be a boolean";
  }
  if (!isOptional(settings.countPrompt, (flag) => typeof flag === "boolean")) {
    return "needs settings.countPrompt to be a boolean";
  }
  if (!isOptional(settings.toolConcurrency, (cap) => cap === null || (isCount(cap) && cap >= 1))) {
    return "needs settings.toolConcurrency to be a whole number, 1 or more, or null";
  }
  if (!isOptional(settings.compaction, isCompactionSettings)) {
    return "needs settings.compaction to have triggerTokens, strategy ('summarize' or 'trim') and a whole keepRecent";
  }
  const { retry, fallbackModels } = settings;
  if (
    !isOptional(
      retry,
      (policy) => isPlainObject(policy) && [policy.attempts, policy.initialDelayMs, policy.maxDelayMs].every(isCount),
    )
  ) {
    return "needs settings.retry to hold whole attempts, initialDelayMs and maxDelayMs";
  }
  if (!isOptional(fallbackModels, isCount)) return "needs settings.fallbackModels to be a whole number";
  if (!isOptional(settings.prepareStep, (flag) => typeof flag === "boolean")) {
    return "needs settings.prepareStep to be a boolean";
  }
  const isAskTool = (tool: unknown) =>
    isPlainObject(tool) && isString(tool.name) && isOptional(tool.answer, isPlainObject);
  if (!isOptional(settings.askTools, (list) => Array.isArray(list) && list.every(isAskTool))) {
    return "needs settings.askTools to be a list of { name, answer? }";
  }
  if (!isOptional(settings.pricing, (map) => isPlainObject(map) && Object.values(map).every(isPrice))) {
    return "needs settings.pricing to map model names to prices in USD, 0 or more";
  }
  if (!isOptional(settings.prices, isRunPrices)) {
    return "needs settings.prices to be { models, summarizer? } of { name, price } with prices in USD, 0 or more";
  }
  if (!isOptional(settings.costBudget, isAmount)) return "needs settings.costBudget to be a number of USD, 0 or more";
  const handoffs = handoffSettingsProblem(settings.handoffs);
  if (handoffs !== null) return handoffs;
  const isMemory = (memory: unknown) =>
    isPlainObject(memory) && scopeProblem(memory.scope) === null && isCount(memory.recall);
  if (!isOptional(settings.memory, isMemory))
    return "needs settings.memory to be { scope, recall } with a whole recall";
  const checks = turnProblem(settings, "settings.");
  if (checks !== null) return checks;
  if (settings.history !== undefined) {
    const history = checkHistory(settings.history);
    if (typeof history === "string") return `has a bad settings.history: ${history}`;
  }
  return null;
}

/** Why a turn's logged checks are malformed (the output schema, its retries, the guardrails' names), or null. */
function turnProblem(value: unknown, prefix: string): string | null {
  if (!isPlainObject(value)) return `needs ${prefix.slice(0, -1)} to be an object`;
  const { output, outputRetries, guardrails } = value;
  if (!isOptional(output, (given) => isPlainObject(given) && isPlainObject(given.schema))) {
    return `needs ${prefix}output to be { schema }`;
  }
  if (!isOptional(outputRetries, isCount)) return `needs ${prefix}outputRetries to be a whole number`;
  const names = (given: unknown) => isPlainObject(given) && isNames(given.input) && isNames(given.output);
  return isOptional(guardrails, names) ? null : `needs ${prefix}guardrails to be { input, output } lists of names`;
}

function isString(value: unknown): value is string {
  return typeof value === "string";
}

/** A finite number, 0 or more: a count of tokens (estimated, so not always whole) or an amount of USD. */
function isAmount(value: unknown): boolean {
  return typeof value === "number" && Number.isFinite(value) && value >= 0;
}

function isUsage(value: unknown): boolean {
  return hasFields(
    value,
    isCount,
    ["inputTokens", "outputTokens"],
    ["cachedInputTokens", "cacheWriteTokens", "reasoningTokens"],
  );
}

function isPricedModel(value: unknown): boolean {
  if (!isPlainObject(value) || !(value.name === null || isString(value.name))) return false;
  return value.price === null || isPrice(value.price);
}

function isPrice(price: unknown): boolean {
  return hasFields(price, isAmount, ["input", "output"], ["cachedInput", "cacheWrite"]);
}

function isRunPrices(value: unknown): boolean {
  return (
    isPlainObject(value) &&
    Array.isArray(value.models) &&
    value.models.length > 0 &&
    value.models.every(isPricedModel) &&
    isOptional(value.summarizer, isPricedModel)
  );
}

function isNames(value: unknown): boolean {
  return Array.isArray(value) && value.every(isString);
}

function isOptional(value: unknown, check: (value: unknown) => boolean): boolean {
  return value === undefined || check(value);
}

/** A plain object whose `required` fields pass `check`, and whose `optional` ones are absent or pass it. */
function hasFields(
  value: unknown,
  check: (field: unknown) => boolean,
  required: readonly string[],
  optional: readonly string[],
): boolean {
  if (!isPlainObject(value)) return false;
  return required.every((key) => check(value[key])) && optional.every((key) => isOptional(value[key], check));
}

function isCompactionSettings(value: unknown): boolean {
  if (!isPlainObject(value)) return false;
  const { triggerTokens, strategy, keepRecent } = value;
  return isAmount(triggerTokens) && (strategy === "summarize" || strategy === "trim") && isCount(keepRecent);
}

function isToolSpec(value: unknown): boolean {
  return (
    isPlainObject(value) &&
    typeof value.name === "string" &&
    typeof value.description === "string" &&
    isPlainObject(value.parameters)
  );
}

function decodeEvent(event: StoredEvent): StoredEvent {
  if (event.type === "model.replied") return { ...event, reply: checkReply(event.reply) as typeof event.reply };
  if (event.type === "run.anchored") {
    const started = decodeEvent(event.started) as typeof event.started;
    const [system, ...rest] = event.state.messages;
    const messages = [system as Message, ...(checkHistory(rest) as Message[])];
    return { ...event, started, state: { ...event.state, messages } };
  }
  if (event.type !== "run.started") return event;
  // JSON has no Infinity: unlimited numbers are written as null.
  const unlimited = (value: number | undefined) => (value === null ? Number.POSITIVE_INFINITY : value);
  const { tokenBudget, repeatLimit, toolConcurrency, history } = event.settings;
  const settings = {
    ...event.settings,
    tokenBudget: unlimited(tokenBudget) as number,
    ...(repeatLimit === undefined ? {} : { repeatLimit: unlimited(repeatLimit) }),
    ...(toolConcurrency === undefined ? {} : { toolConcurrency: unlimited(toolConcurrency) }),
    ...(history === undefined ? {} : { history: checkHistory(history) as typeof history }),
  };
  return { ...event, settings };
}
