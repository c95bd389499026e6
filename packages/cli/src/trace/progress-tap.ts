import { agentMachine, type EventStore } from "@agentloop/core";
import type { RunSummary, StoredEvent } from "@agentloop/core/store";
import { initialTransition, type SnapshotFrom, transition } from "xstate";
import { chartOf, leafIdOf, stateName } from "../chart/statechart.js";

/** Where a live run is: its state, model calls made of the limit, tokens spent of the budget. */
export interface Progress {
  readonly state: string;
  readonly steps: number;
  readonly maxSteps: number;
  readonly tokens: number;
  readonly tokenBudget: number;
  /** The tool running now, if one is. */
  readonly tool: string | null;
}

const chart = chartOf(agentMachine);

/**
 * A store that keeps every event in `inner` and, once it is kept, folds it through `agentMachine`
 * with XState's pure `transition()` to tell `onProgress` where the run is. Events are logged
 * before the machine sees them, so the state told is the one the machine is about to enter.
 * `history` (a resumed run's log so far) is folded first.
 */
export function progressTap(
  inner: EventStore,
  onProgress: (progress: Progress) => void,
  history: readonly StoredEvent[] = [],
): EventStore {
  let snapshot: SnapshotFrom<typeof agentMachine> | null = null;
  const fold = (event: StoredEvent, report = true) => {
    const { seq: _seq, at: _at, hash: _hash, ...rest } = event;
    let tool: string | null = null;
    if (rest.type === "run.started") {
      [snapshot] = initialTransition(agentMachine, { settings: rest.settings, schemaVersion: rest.schemaVersion });
    } else if (rest.type === "tool.started") tool = rest.name;
    else if (rest.type !== "run.finished" && rest.type !== "user.messaged" && snapshot?.can(rest)) {
      [snapshot] = transition(agentMachine, snapshot, rest);
    }
    if (snapshot === null || !report) return;
    const { context, value } = snapshot;
    onProgress({
      state: stateName(chart, leafIdOf(chart, value)),
      steps: context.steps,
      maxSteps: context.maxSteps,
      tokens: context.tokens,
      tokenBudget: context.tokenBudget,
      tool,
    });
  };
  for (const event of history) fold(event, false);
  return {
    async append(runId: string, event: StoredEvent): Promise<void> {
      await inner.append(runId, event);
      fold(event);
    },
    read: (runId: string): Promise<StoredEvent[]> => inner.read(runId),
    list: (): Promise<RunSummary[]> => inner.list(),
  };
}
