import assert from "node:assert/strict";
import { setTimeout as sleep } from "node:timers/promises";
import { type AgentResult, replayRun } from "@agentloop/core";
import { parseEventLog } from "@agentloop/core/store";
import type { AgentHandlers } from "@agentloop/restate";
import * as clients from "@restatedev/restate-sdk-clients";

/** Submits a run through Restate's ingress, approves what waits for a decision, and returns its result. */
export async function submitAndDecide(ingress: string, runId: string): Promise<AgentResult> {
  const restate = clients.connect({ url: ingress });
  const run = restate.workflowClient<AgentHandlers>({ name: "agent" }, runId);

  // One run per id: submitting the same id again attaches to the run already there.
  await run.workflowSubmit({ task: "How hot is Pune in Fahrenheit? Email me the report.", maxSteps: 6 });

  // Where it stands: the report waits for a decision (for as long as it takes: the run is durable).
  let status = await run.status();
  while (status.phase !== "awaiting_approval") {
    await sleep(50);
    status = await run.status();
  }
  assert.deepEqual(
    status.awaitingDecision.map((call) => call.name),
    ["email_report"],
  );
  for (const call of status.awaitingDecision) await run.decide({ callId: call.id, approved: true });

  // The result, once the run ends; and its event log, which replays to the same result.
  const result = await run.workflowAttach();
  const log = parseEventLog(runId, await run.events());
  assert.deepEqual(replayRun(log).result?.messages, result.messages);
  return result;
}
