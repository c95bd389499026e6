import type { AgentResult } from "@agentloop/core";
import { stateName } from "../chart/statechart.js";
import type { RunTrace } from "../trace/run-trace.js";
import type { Palette } from "./colors.js";

/** The closing lines of a finished run: status, steps, tokens, and the answer. */
export function formatOutcome(result: AgentResult, colors: Palette): string[] {
  const status = result.status === "done" ? colors.green(result.status) : colors.yellow(result.status);
  return [
    `${colors.bold("result")}   ${status} · steps ${result.steps} · tokens ${result.tokens} · messages ${result.messages.length}`,
    `${colors.bold("answer")}   ${result.answer ?? colors.dim("(none)")}`,
  ];
}

/** What a log that has not reached a final state means, and how to go on. */
export function unfinishedNote(trace: RunTrace, colors: Palette, label: string): string[] {
  const state = stateName(trace.chart, trace.state);
  const { steps, tokens } = trace.context;
  const head = `${colors.bold("result")}   ${colors.yellow("not finished")} · in ${state} · steps ${steps} · tokens ${tokens}`;
  const waiting = waitingCalls(trace);
  if (waiting.length > 0) {
    const ids = waiting.map((call) => `${call.id} (${call.name})`).join(", ");
    return [
      head,
      `${colors.bold("waiting")}  for a decision on ${ids}`,
      `${colors.dim("resume")}   agentloop resume ${label} --tools <module> --approve <callId> | --deny <callId>`,
    ];
  }
  return [
    head,
    `${colors.dim("the log ends before the run did: it was interrupted, or it is still going")}`,
    `${colors.dim("resume")}   agentloop resume ${label} --tools <module> [--model <provider:name> | --script <file.json>]`,
  ];
}

/** The calls that wait for an approval decision when the log ends. */
export function waitingCalls(trace: RunTrace): { id: string; name: string }[] {
  const { batch } = trace.context;
  if (!trace.state.endsWith(".awaitingDecision") || batch === null) return [];
  return batch.indexesIn("deciding").flatMap((index) => {
    const call = batch.calls[index];
    return call === undefined ? [] : [{ id: call.id, name: call.name }];
  });
}

/** For a run paused for approval: which calls wait, and the command that goes on. */
export function waitingLine(result: AgentResult, label: string, colors: Palette): string[] {
  const pending = result.pendingApprovals ?? [];
  if (pending.length === 0) return [];
  const ids = pending.map((call) => `${call.id} (${call.name})`).join(", ");
  return [
    `${colors.bold("waiting")}  for a decision on ${ids}`,
    `${colors.dim("resume")}   agentloop resume ${label} --tools <module> --approve <callId> | --deny <callId>`,
  ];
}
