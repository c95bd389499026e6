import type { StateValue } from "xstate";
import type { PendingQuestion, ToolCall } from "../data/index.js";
import { pendingApprovals } from "./agent-decisions.js";
import type { AgentSnapshot } from "./agent-machine.js";
import { pendingQuestions } from "./questions.js";

/** What a parent sees of a running agent: its counters, the calls that wait for a decision and the questions that wait for an answer. */
export interface AgentView {
  /** The run's id in its store; `null` for a run without a store. */
  readonly runId: string | null;
  /** Model calls made. */
  readonly steps: number;
  /** Tokens spent, every prompt plus every reply. */
  readonly tokens: number;
  /** The calls of the last reply that wait for a decision, in call order. */
  readonly pendingApprovals: readonly ToolCall[];
  /** The questions of the last reply that wait for an answer, in call order. */
  readonly pendingQuestions: readonly PendingQuestion[];
}

/** The agent machine's state value (as the Stately inspector lights it) and the view, from one of its snapshots. */
export function viewOf(snapshot: AgentSnapshot, runId: string | null): { value: StateValue; context: AgentView } {
  const { steps, tokens } = snapshot.context;
  return {
    value: snapshot.value,
    context: {
      runId,
      steps,
      tokens,
      pendingApprovals: pendingApprovals(snapshot.context),
      pendingQuestions: pendingQuestions(snapshot.context),
    },
  };
}

/** Whether two views differ in anything a parent would act on. */
export function isNewView(
  before: { value: StateValue | null; context: AgentView },
  after: { value: StateValue; context: AgentView },
): boolean {
  const ids = (view: AgentView) =>
    [...view.pendingApprovals.map((call) => call.id), "", ...view.pendingQuestions.map((question) => question.id)].join(
      "\n",
    );
  return (
    JSON.stringify(before.value) !== JSON.stringify(after.value) ||
    before.context.steps !== after.context.steps ||
    before.context.tokens !== after.context.tokens ||
    ids(before.context) !== ids(after.context)
  );
}
