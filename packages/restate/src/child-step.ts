import type { AgentResult, ToolCall } from "@agentloop/core";
import type { WorkflowContext } from "@restatedev/restate-sdk";
import type { ChildWorkflows } from "./child-workflows.js";
import { now, type PendingStep, settled, type Taken } from "./step-outcome.js";
import type { ChildRunRequest } from "./types.js";

/** A child run's handler as its parent's workflow calls it. */
type ChildHandlers = { run(ctx: WorkflowContext, request: ChildRunRequest): Promise<AgentResult> };

/**
 * A call of an agent tool: its child is a run of this workflow of its own, called (and journaled
 * as a call) under the child's run id, so that a retried execution attaches to it again rather
 * than starting a second one; when it ends, the time is journaled and the run gets the answer.
 */
export function childStep(
  ctx: WorkflowContext,
  key: string,
  call: ToolCall,
  children: ChildWorkflows,
  workflow: string,
): PendingStep {
  const { childRunId, request } = children.start(call);
  const ran = ctx.workflowClient<ChildHandlers>({ name: workflow }, childRunId).run(request);
  const ended = (result: AgentResult): PendingStep => {
    const at = ctx.run(`${key} ended`, () => now());
    const outcome = at.map(
      (value, failure): Taken => ({
        key,
        at: settled(value, failure),
        answer: children.answer(call, childRunId, result),
      }),
    );
    return { key, running: call, child: childRunId, outcome };
  };
  const outcome = ran.map((result, failure): Taken => {
    const value = settled(result, failure) as AgentResult;
    return { key, at: "", answer: null, next: () => ended(value) };
  });
  return { key, running: call, child: childRunId, outcome };
}
