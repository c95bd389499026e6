import type { AgentResult, Decision, Model, RunEvent, RunSettings, StoredEvent, TurnChecks } from "../../data/index.js";
import {
  copyJson,
  escapeCallId,
  logFlags,
  type MessageContent,
  normalizeContent,
  type ToolCall,
  unescapeCallId,
} from "../../data/index.js";
import { canonicalJson, pendingApprovals, pendingQuestions } from "../../decide/index.js";
import {
  EventLogError,
  type EventStore,
  foldEvents,
  holding,
  Journal,
  outcomeOf,
  type Replay,
  replayRun,
  startedOf,
} from "../../log/index.js";
import type { ToolRegistry, ToolSchema } from "../../tools/index.js";
import { readTree, replayedOf, type TreeChild, type TreeRun, treeListing } from "../children/index.js";
import { continuedMemoryStore, describe, type MemoryOptions, memoryStoreFor, resolveLimits } from "../options/index.js";
import { type AnswerPort, checkAnswer, type OutputOf, resolveTurn, type TurnOptions } from "../performers/index.js";
import { checkResumeOptions } from "./resume-options.js";
import { checkRunOptions, type DrivingOptions, portsOf, type RunOptions, runLive, typedResult } from "./run-agent.js";

/**
 * Options of `resumeAgent`: the store, decisions for calls that wait for one, the run-time
 * safeguards, the models and the listeners. What the log's `run.started` holds (limits, policies,
 * the run's id) is never given again: `resumeAgent` refuses it (see `checkResumeOptions`).
 */
export interface ResumeOptions<Output extends ToolSchema = ToolSchema>
  extends DrivingOptions,
    Pick<RunOptions, "onLogged">,
    Pick<TurnOptions<Output>, "output" | "guardrails"> {
  readonly store: EventStore;
  /**
   * Decisions by call id for the calls a paused run waits on (`pendingApprovals`); asked before
   * `approve`. Each applies to that waiting call only, never to a later call with the same id; an
   * id that waits for no decision, or that names more than one waiting call, is refused. A child's
   * call is named by its chained id; the run's own call by its id, or by its id as a chained id
   * writes it (`%2F` for `/`, `%25` for `%`) where its plain id is also a child call's chained id.
   */
  readonly decisions?: Readonly<Record<string, Decision>>;
  /**
   * Answers by call id for the questions a paused run waits on (`pendingQuestions`): each becomes
   * its call's observation, as JSON. An id that names no waiting question, or an answer that does
   * not fit the tool's answer schema, is refused in one line before anything is logged.
   */
  readonly answers?: Readonly<Record<string, unknown>>;
  /** Writes the summaries when the run compacts with `summarize` (default: `model`); logged summaries are never asked for again. */
  readonly summarizer?: Model;
  /** Only its `summarizer` (as `runAgent` takes it); the rest of `compaction` is the log's. */
  readonly compaction?: { readonly summarizer?: Model };
  /** The store of a run started with `memory` (its scope and recall are the log's; a scope given must be the same). */
  readonly memory?: Pick<MemoryOptions, "store"> & Partial<MemoryOptions>;
}

/**
 * Continues a run from its log: the machine starts from the state the log replays to. No logged
 * model reply is asked for again and no tool whose result is logged runs again; a tool the process
 * died in runs again only if it is registered as idempotent (or its call was invalid, so nothing
 * ran), otherwise the model is told its result was lost. A finished run is not extended: its result
 * comes back as it was (`continueAgent` takes a conversation further). Throws `EventLogError` for
 * an unknown run, a log that does not fit, or tools that differ from the registry's; `RangeError`
 * for a decision on a call that waits for none, or that names more than one.
 */
export async function resumeAgent<Output extends ToolSchema = never>(
  runId: string,
  model: Model,
  registry: ToolRegistry,
  options: ResumeOptions<Output>,
): Promise<AgentResult<OutputOf<Output>>> {
  // A cut-off turn's answer is checked against `output` before it is logged too.
  return typedResult<Output>(resumeWith(runId, model, registry, options));
}

/**
 * Resumes as `resumeAgent` does; questions that no answer given here answers are asked through
 * `asked` (an embedded run's parent), when given.
 */
export async function resumeWith(...args: Parameters<typeof resumeLocked>): Promise<AgentResult> {
  const [runId, , , options] = args;
  // Refused before the run is held, as well as under it.
  checkResume(options);
  // One writer per run: the log is read under the lock, so its end cannot move until the run returns.
  return holding(options.store, runId, () => resumeLocked(...args));
}

/** Resumes as `resumeWith` does, for a caller that holds the run already (`store.acquire`). */
export async function resumeLocked(
  runId: string,
  model: Model,
  registry: ToolRegistry,
  options: ResumeOptions,
  asked?: AnswerPort,
): Promise<AgentResult> {
  checkResume(options);
  const decisions = options.decisions ?? {};
  checkAnswersShape(options.answers);
  const answers = options.answers ?? {};
  const { compaction, answers: _answers, ...rest } = options;
  const summarizer = options.summarizer ?? compaction?.summarizer;
  const taken = summarizer === undefined ? rest : { ...rest, summarizer };
  return resumeHeld(
    runId,
    model,
    registry,
    taken,
    (log, own) => routeDecisions(options.store, runId, log, decisions, own),
    async (log) => {
      const took = await takeAnswers(runId, registry, log, answers, options.store);
      return asked === undefined ? took : { ...took, port: firstAnswer(took.port, asked) };
    },
  );
}

/** Refuses the options a resume cannot take (the log's, unknown ones) and those no run can, before anything is logged. */
function checkResume(options: ResumeOptions): void {
  checkResumeOptions(options);
  checkRunOptions(options);
}

/** The answer `given` has for a question, else the one `asked` gets. */
function firstAnswer(given: AnswerPort | undefined, asked: AnswerPort): AnswerPort {
  if (given === undefined) return asked;
  return async (call) => (await given(call)) ?? asked(call);
}

/**
 * Resumes a child run of a tree with the decisions its parent routed to it: its own calls' by
 * their escaped ids, its children's by chained id (checked against the tree by the root's resume).
 */
export function resumeChild(
  runId: string,
  model: Model,
  registry: ToolRegistry,
  options: Omit<ResumeOptions, "decisions" | "answers">,
  decisions: Readonly<Record<string, Decision>>,
  answers: Readonly<Record<string, unknown>> = {},
): Promise<AgentResult> {
  checkRunOptions(options);
  const routed: Routed = { own: new Map(), chained: {} };
  for (const [id, decision] of Object.entries(decisions)) {
    if (id.includes("/")) routed.chained[id] = decision;
    else routed.own.set(unescapeCallId(id), decision);
  }
  const take = (log: LogRead) => takeAnswers(runId, registry, log, answers, options.store);
  return holding(options.store, runId, () => resumeHeld(runId, model, registry, options, async () => routed, take));
}

/** A paused run's log as read to resume it, and its replay. */
interface LogRead {
  readonly events: readonly StoredEvent[];
  readonly replay: Replay;
}

/** The children a paused run's calls wait on, read by the tree reader from the log read already. */
async function waitingChildren(store: EventStore, runId: string, log: LogRead): Promise<readonly TreeChild<TreeRun>[]> {
  const { events, replay } = log;
  return (await readTree(store, runId, { events, root: replayedOf(replay), waitingOnly: true })).children;
}

/** Decisions split by whom they are for: the run's own calls, by call id; its children's calls, by chained id. */
interface Routed {
  readonly own: Map<string, Decision>;
  readonly chained: Record<string, Decision>;
}

async function resumeHeld(
  runId: string,
  model: Model,
  registry: ToolRegistry,
  options: Omit<ResumeOptions, "decisions">,
  route: (log: LogRead, own: ReadonlyMap<string, ToolCall>) => Promise<Routed>,
  take: (log: LogRead) => Promise<TakenAnswers>,
): Promise<AgentResult> {
  const { store, approve } = options;
  const { events, replay, journal } = await reopen(store, runId, registry, options.onLogged);
  if (replay.result !== null) return { ...replay.result, runId };
  const { port: answers, chained: childAnswers } = await take({ events, replay });
  const pending = new Map(pendingApprovals(replay.context).map((call) => [call.id, call]));
  const { own, chained } = await route({ events, replay }, pending);
  // A given decision answers the call that waits now, once: a later call reusing its id is asked anew.
  const given = new Set([...own.keys()].filter((id) => pending.has(id)));
  const decide: typeof approve = (call) => {
    if (given.delete(call.id) && pending.get(call.id) === call) return own.get(call.id);
    return approve?.(call);
  };
  const settings = startOf(runId, events).settings;
  return runLive({
    ...portsOf({ ...options, answers }, options.summarizer),
    memory: memoryStoreFor(options.memory, settings.memory),
    approve: decide,
    model,
    registry,
    journal,
    // A turn cut off in a check performs the rest of it with the same schema and guardrails.
    checks: resolveTurn({ output: options.output, guardrails: options.guardrails }).ports,
    settings,
    schemaVersion: replay.schemaVersion,
    from: { snapshot: replay.snapshot, interrupted: replay.interrupted },
    notes: notesOf(events),
    store,
    childDecisions: chained,
    childAnswers,
    resumedWithApprover: approve !== undefined,
  });
}

/** Answers split as decisions are: the run's own questions' as the port that gives each once, its children's by chained id. */
interface TakenAnswers {
  readonly port: AnswerPort | undefined;
  readonly chained: Readonly<Record<string, unknown>>;
}

function checkAnswersShape(answers: unknown): void {
  if (answers !== undefined && (typeof answers !== "object" || answers === null || Array.isArray(answers))) {
    throw new TypeError(`answers must be an object of answers by call id; got ${describe(answers)}`);
  }
}

/**
 * Checks that every answer names a question the run waits on and fits its tool's answer schema,
 * and gives them as the port that answers each question once. Throws a `RangeError` in one line
 * for the first that does not; nothing is logged then.
 */
async function takeAnswers(
  runId: string,
  registry: ToolRegistry,
  log: LogRead,
  answers: Readonly<Record<string, unknown>>,
  store: EventStore,
): Promise<TakenAnswers> {
  const { replay } = log;
  const entries = Object.entries(answers);
  if (entries.length === 0) return { port: undefined, chained: {} };
  const waiting = pendingQuestions(replay.context);
  const calls = new Map((replay.context.batch?.calls ?? []).map((call) => [call.id, call]));
  const given = new Map<string, unknown>();
  // A child's question is checked against its own tool when the child resumes: here only that it waits.
  const tree = entries.some(([id]) => id.includes("/") && !waiting.some((each) => each.id === id))
    ? (await waitingChildren(store, runId, log)).flatMap((child) => child.questions)
    : [];
  const chained: Record<string, unknown> = {};
  for (const [id, answer] of entries) {
    if (tree.some((each) => each.id === id)) {
      chained[id] = answer;
      continue;
    }
    const question = waiting.find((each) => each.id === id || escapeCallId(each.id) === id);
    // The same answer given again, once its question was answered (a resume that died after it logged it): nothing to do.
    if (question === undefined && (await isAnsweredWith(registry, replay, id, answer))) continue;
    if (question === undefined) {
      const listed = [...waiting, ...tree].map((each) => `'${each.id}'`).join(", ") || "none";
      throw new RangeError(`run '${runId}': call '${id}' waits for no answer (questions that wait: ${listed})`);
    }
    const checked = await checkAnswer(registry, (calls.get(question.id) as ToolCall).name, answer, question.schema);
    if (!checked.ok) throw new RangeError(`run '${runId}': the answer to '${id}' does not fit: ${checked.problem}`);
    given.set(question.id, checked.value);
  }
  const port: AnswerPort = (call) => {
    if (!given.has(call.id)) return undefined;
    const answer = given.get(call.id);
    given.delete(call.id);
    return { answer };
  };
  return { port, chained };
}

/** Whether the question of call `id` in the last reply was answered, and with this very answer. */
async function isAnsweredWith(registry: ToolRegistry, replay: Replay, id: string, answer: unknown): Promise<boolean> {
  const asked = replay.context.toolAsks.find((ask) => ask.callId === id && ask.waiting === null);
  // A tool's question answered last: the call is made again with that answer.
  if (asked !== undefined) {
    const copied = copyJson(answer);
    return copied.ok && canonicalJson(asked.answers.at(-1)) === canonicalJson(copied.value);
  }
  const batch = replay.context.batch;
  const index = batch === null ? -1 : batch.find(id, "answered");
  const call = batch?.calls[index];
  if (batch === null || call === undefined || !replay.context.askTools.some((tool) => tool.name === call.name)) {
    return false;
  }
  const checked = await checkAnswer(registry, call.name, answer);
  return checked.ok && batch.contentOf(index) === (JSON.stringify(checked.value) ?? "null");
}

/**
 * Checks that every decision names exactly one call the run's tree waits on, and splits them: the
 * run's own calls by their ids, its children's by chained id (so a child's call with the same id
 * never gets one meant for the parent).
 */
async function routeDecisions(
  store: EventStore,
  runId: string,
  log: LogRead,
  decisions: Readonly<Record<string, Decision>>,
  own: ReadonlyMap<string, ToolCall>,
): Promise<Routed> {
  const routed: Routed = { own: new Map(), chained: {} };
  const entries = Object.entries(decisions);
  // Only an id with a `/` can be a chained id: the children's logs are read only then.
  const tree = entries.some(([id]) => id.includes("/"))
    ? (await waitingChildren(store, runId, log)).flatMap((child) => child.waiting)
    : [];
  const chained = new Set(tree.map((call) => call.id));
  for (const [id, decision] of entries) {
    // An own call whose id a child's call also has as its chained id is named by its escaped id only.
    const owned = [...own.keys()].filter(
      (callId) => (callId === id && !chained.has(id)) || escapeCallId(callId) === id,
    );
    const named = [
      ...owned.map((callId) => `the run's own call '${callId}'`),
      ...(chained.has(id) ? [`a child's call '${id}'`] : []),
    ];
    if (named.length === 0) {
      const listed =
        treeListing([...own.values()], tree)
          .map((call) => `'${call.id}'`)
          .join(", ") || "none";
      throw new RangeError(`run '${runId}': call '${id}' waits for no decision (calls that wait: ${listed})`);
    }
    if (named.length > 1) {
      throw new RangeError(
        `run '${runId}': '${id}' names ${named.length} waiting calls (${named.join(", ")}); give a decision for each by an id that names it alone`,
      );
    }
    const [callId] = owned;
    if (callId === undefined) routed.chained[id] = decision;
    else if (routed.own.has(callId)) throw new RangeError(`run '${runId}': two decisions name call '${callId}'`);
    else routed.own.set(callId, decision);
  }
  return routed;
}

/**
 * Takes a finished run's conversation further with the user's next `message`: it is logged
 * (`user.messaged`), and the machine goes back to `budgetCheck` with the whole list, its step and
 * token limits counted afresh for the new turn (the result's `steps` and `tokens` keep counting
 * over the run). Throws `EventLogError` for a run that is not finished (resume it first), a log of
 * schema 1, or tools that differ from the registry's.
 */
export async function continueAgent<Output extends ToolSchema = never>(
  runId: string,
  message: MessageContent,
  model: Model,
  registry: ToolRegistry,
  options: ContinueOptions<Output>,
): Promise<AgentResult<OutputOf<Output>>> {
  checkRunOptions(options);
  const content = normalizeContent(message, "message");
  return typedResult<Output>(
    holding(options.store, runId, () => continueHeld(runId, content, model, registry, options)),
  );
}

/** Options of `continueAgent`: those of `resumeAgent` but the decisions, and the new turn's output schema and guardrails. */
export interface ContinueOptions<Output extends ToolSchema = ToolSchema>
  extends Omit<ResumeOptions, "decisions" | "answers" | "output" | "guardrails">,
    TurnOptions<Output> {}

async function continueHeld(
  runId: string,
  message: MessageContent,
  model: Model,
  registry: ToolRegistry,
  options: ContinueOptions,
): Promise<AgentResult> {
  const turn = resolveTurn(options);
  const { events, replay, journal } = await reopen(options.store, runId, registry, options.onLogged);
  if (replay.result === null) {
    throw new EventLogError(`run '${runId}' is not finished: resume it before it takes a new message`, {
      runId,
      position: events.length,
    });
  }
  if (!logFlags(replay.schemaVersion).conversations) {
    throw new EventLogError(`run '${runId}' has a log of schema 1, which cannot hold a conversation's next turn`, {
      runId,
      position: 0,
    });
  }
  const settings = startOf(runId, events).settings;
  return runLive({
    ...portsOf(options, options.summarizer ?? options.compaction?.summarizer),
    memory: continuedMemoryStore(options.memory, settings.memory),
    model,
    registry,
    journal,
    store: options.store,
    settings,
    schemaVersion: replay.schemaVersion,
    checks: turn.ports,
    begin: { type: "user.messaged", content: message, ...withTurn(turn.checks) },
    continues: { context: replay.context, message, ...withTurn(turn.checks) },
  });
}

/** Where a fork starts and what it changes. */
export interface ForkOptions {
  /** Events of the original to keep, counting `run.started` (default: all but a last `run.finished`). */
  readonly keep?: number;
  /** The new run's id; a random UUID when not given. */
  readonly runId?: string;
  readonly maxSteps?: number;
  readonly tokenBudget?: number;
}

/**
 * Starts a new run from a prefix of another's log, with other limits if asked (say, a larger
 * budget), and returns its id; resume it to go on. The original log is left untouched. Events the
 * new limits would never reach (a smaller budget ends it sooner) are not copied. Limits are checked
 * as `runAgent` checks them.
 */
export async function forkRun(store: EventStore, runId: string, options: ForkOptions = {}): Promise<string> {
  const { keep, runId: forkId = globalThis.crypto.randomUUID() } = options;
  checkRunOptions({ store, runId: forkId });
  if (keep !== undefined && !(Number.isSafeInteger(keep) && keep >= 1)) {
    throw new RangeError(`keep must be a whole number of events, 1 or more; got ${describe(keep)}`);
  }
  return holding(store, forkId, () => copyPrefix(store, runId, forkId, keep, options));
}

/** The fork's log, written while the fork's run is held. */
async function copyPrefix(
  store: EventStore,
  runId: string,
  forkId: string,
  keep: number | undefined,
  options: ForkOptions,
): Promise<string> {
  const events = await store.read(runId);
  const started = startOf(runId, events);
  if (events[0]?.type === "run.anchored") {
    throw new EventLogError(
      `run '${runId}' was pruned by retain: the events a fork would copy are gone (its anchor keeps only where they led; continueAgent goes on from there)`,
      { runId, position: 0 },
    );
  }
  const limits = resolveLimits({
    maxSteps: options.maxSteps ?? started.settings.maxSteps,
    tokenBudget: options.tokenBudget ?? started.settings.tokenBudget,
  });
  const settings: RunSettings = { ...started.settings, ...limits };
  // A fork goes on: a last run.finished is left out, and a turn's end the new limits do not reach stops the copy.
  const cut = events.slice(0, keep ?? events.length);
  const prefix = cut.at(-1)?.type === "run.finished" ? cut.slice(0, -1) : cut;
  const { consumed } = foldEvents(prefix, { runId, settings, partial: true });
  // A fork that ended inside a call would report it lost: the starts of the calls it cuts are left
  // out, so that those calls run in the fork as if they never started; so are the pauses and
  // resumes of such a call, whose child run is the original's, not the fork's.
  const finished = new Set(prefix.slice(0, consumed).flatMap((e) => (e.type === "tool.finished" ? [e.callId] : [])));
  const copied = prefix.slice(1, consumed).filter((e) => !CUT_WITH_CALL.has(e.type) || finished.has(callIdOf(e)));
  if ((await store.read(forkId)).length > 0) {
    throw new EventLogError(`run '${forkId}' already exists: fork into a new id`, { runId: forkId, position: 0 });
  }
  const journal = new Journal(store, forkId, [], { schemaVersion: started.schemaVersion });
  const forkedFrom = { runId, seq: consumed };
  // A fork is its original owner's run, as the original is.
  const owner = started.owner === undefined ? {} : { owner: started.owner };
  const begin: RunEvent = { type: "run.started", schemaVersion: started.schemaVersion, settings, forkedFrom, ...owner };
  for (const event of [begin, ...copied.map(unstamped)]) await journal.commit(event);
  return forkId;
}

/** The events of a call a fork cuts that are left out with it. */
const CUT_WITH_CALL: ReadonlySet<string> = new Set(["tool.started", "tool.paused", "tool.resumed"]);

function callIdOf(event: StoredEvent): string {
  return "callId" in event ? String(event.callId) : "";
}

/**
 * A run's log, replayed, with a journal to go on writing it; refuses an unknown run and tools that
 * differ. A crash between the machine's end and the log's is mended by logging the end now.
 */
async function reopen(
  store: EventStore,
  runId: string,
  registry: ToolRegistry,
  onLogged: ((event: StoredEvent) => void) | undefined,
): Promise<{ events: StoredEvent[]; replay: Replay; journal: Journal }> {
  const events = await store.read(runId);
  checkTools(runId, startOf(runId, events).settings, registry);
  const replay = replayRun(events, { runId });
  const journal = new Journal(store, runId, events, { onLogged });
  if (replay.result !== null && !replay.finished) {
    await journal.commit({ type: "run.finished", outcome: outcomeOf(replay.result, replay.schemaVersion) });
  }
  return { events, replay, journal };
}

/** The `turn` field of a next turn with checks; none for a turn without (logs as before). */
function withTurn(checks: TurnChecks): { turn?: TurnChecks } {
  return Object.keys(checks).length === 0 ? {} : { turn: checks };
}

function unstamped({ seq: _seq, at: _at, hash: _hash, ...event }: StoredEvent): RunEvent {
  return event;
}

function startOf(runId: string, events: readonly StoredEvent[]): Extract<StoredEvent, { type: "run.started" }> {
  const started = startedOf(events);
  if (started === undefined) {
    throw new EventLogError(`run '${runId}' has no log in this store`, { runId, position: 0 });
  }
  return started;
}

function checkTools(runId: string, settings: RunSettings, registry: ToolRegistry): void {
  const logged = canonicalJson([settings.tools, settings.approvalRequired ?? []]);
  const current = canonicalJson([registry.specs(), registry.approvalRequired()]);
  if (logged === current) return;
  throw new EventLogError(
    `run '${runId}' was started with other tools than this registry has (specs and approval flags): the log has ${logged}, the registry has ${current}`,
    { runId, position: 0 },
  );
}

/** What the calls of a log noted (`tool.noted`), by call id, in order: given back to a call made again. */
function notesOf(events: readonly StoredEvent[]): Map<string, unknown[]> {
  const notes = new Map<string, unknown[]>();
  for (const event of events) {
    if (event.type !== "tool.noted") continue;
    const kept = notes.get(event.callId);
    if (kept === undefined) notes.set(event.callId, [event.note]);
    else kept.push(event.note);
  }
  return notes;
}
