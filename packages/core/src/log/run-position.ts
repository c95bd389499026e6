import type { Message, PendingQuestion, ToolCall } from "../data/index.js";
import { listView } from "../data/index.js";
import { type AgentSnapshot, isAskingCall, pendingApprovals, pendingQuestions } from "../decide/index.js";

/** Where a run stands, read from a snapshot of its machine: for status pages, progress and traces. */
export interface RunPosition {
  /** The state, e.g. `callingModel` or `executingTools.runningTools`. */
  readonly state: string;
  /** Whether the machine reached a final state. */
  readonly final: boolean;
  /** Model calls and tokens over the whole run. */
  readonly steps: number;
  readonly tokens: number;
  /** Model calls and tokens of the current turn: the limits count these. */
  readonly turnSteps: number;
  readonly turnTokens: number;
  /** The calls of the last reply with calls, in call order (answered ones too). */
  readonly calls: readonly ToolCall[];
  /** Calls that wait for a decision, in call order. */
  readonly waiting: readonly ToolCall[];
  /** Questions of ask-user tools that wait for a person's answer, in call order. */
  readonly questions: readonly PendingQuestion[];
  /** Calls that run (or are about to), in call order. */
  readonly running: readonly ToolCall[];
  /** The message list so far, as a read-only view made in O(1): later events never show in it. */
  readonly messages: readonly Message[];
}

const NONE: readonly ToolCall[] = Object.freeze([]);
const NO_QUESTIONS: readonly PendingQuestion[] = Object.freeze([]);

/** Reads where the run stands from `snapshot`, without changing or keeping it. */
export function positionOf(snapshot: AgentSnapshot): RunPosition {
  const { context } = snapshot;
  const { steps, tokens, turnStart } = context;
  const { batch } = context;
  const callsOf = (state: "deciding" | "running") =>
    batch === null ? NONE : batch.indexesIn(state).map((index) => batch.calls[index] as ToolCall);
  return {
    state: stateName(snapshot.value),
    final: snapshot.status !== "active",
    steps,
    tokens,
    turnSteps: steps - turnStart.steps,
    turnTokens: tokens - turnStart.tokens,
    calls: batch === null ? NONE : batch.calls,
    waiting: context.askTools.length === 0 ? callsOf("deciding") : pendingApprovals(context),
    questions:
      context.askTools.length === 0 && context.toolAsks.length === 0 ? NO_QUESTIONS : pendingQuestions(context),
    // A call whose tool asked a question waits for its answer: it is listed with the questions, not as running.
    running:
      context.toolAsks.length === 0
        ? callsOf("running")
        : callsOf("running").filter((call) => !isAskingCall(context, call.id)),
    messages: listView(context.transcript),
  };
}

/** `callingModel`, or `executingTools.runningTools` for a nested state. */
function stateName(value: unknown): string {
  if (typeof value === "string") return value;
  const [[parent, child] = ["", ""]] = Object.entries(value as Record<string, unknown>);
  return `${parent}.${stateName(child)}`;
}
