import type { AgentResult, AgentStatus, Message } from "../../src/index.js";
import { contentText } from "../../src/index.js";
import { type RunEvent, runHashSeed, type StoredEvent, stampEvent } from "../../src/store.js";

/** The machine's final state for each status; `awaiting_approval` is a wait inside `executingTools`, not a final state. */
export const STATE_OF: Readonly<Record<AgentStatus, unknown>> = {
  done: "done",
  step_limit: "stepLimit",
  token_budget: "tokenBudget",
  refused: "refused",
  repeated_call: "repeatedCall",
  cancelled: "cancelled",
  awaiting_approval: { executingTools: "awaitingDecision" },
  invalid_output: "invalidOutput",
  guardrail_tripped: "guardrailTripped",
  awaiting_input: { executingTools: "awaitingInput" },
  cost_budget: "costBudget",
};

type ToolMessage = Extract<Message, { role: "tool" }>;

export function toolMessages(messages: readonly Message[]): ToolMessage[] {
  return messages.filter((m): m is ToolMessage => m.role === "tool");
}

/** The content of the tool message for call `id` (the first one), or undefined. */
export function observationOf(messages: readonly Message[], id: string): string | undefined {
  const content = toolMessages(messages).find((m) => m.toolCallId === id)?.content;
  return content === undefined ? undefined : contentText(content);
}

/**
 * Checks the shape every trace must have: system, user, then each assistant message followed by exactly one
 * tool message per call, in call order, with the call's id and name, before anything else (the next model
 * call sees them all); user messages may come between the turns (a conversation, a history carried over). Only the last assistant message of a run that is `open` (paused for a decision) may
 * lack some of its tool messages, and then only at its end. Returns what is wrong, or null.
 */
export function traceProblem(messages: readonly Message[], open = false): string | null {
  if (messages[0]?.role !== "system") return "the first message is not the system message";
  if (messages[1]?.role !== "user") return "the second message is not the task";
  let at = 2;
  while (at < messages.length) {
    const message = messages[at];
    // A conversation goes on with the user's next message (or a history carried over has several).
    if (message?.role === "user") {
      at += 1;
      continue;
    }
    if (message?.role !== "assistant")
      return `message ${at} is a ${message?.role} message where an assistant one belongs`;
    at += 1;
    for (const [i, call] of message.toolCalls.entries()) {
      const answer = messages[at];
      if (answer === undefined) {
        return open ? null : `call ${i} (${call.id}) of the assistant message ${at - i - 1} has no tool message`;
      }
      if (answer.role !== "tool" || answer.toolCallId !== call.id || answer.name !== call.name) {
        return `message ${at} should be the tool message of call ${call.id} (${call.name}), got ${JSON.stringify(answer)}`;
      }
      at += 1;
    }
  }
  return null;
}

/** The result's status, steps, tokens and messages, without the run id: what a replay must give back. */
export function comparable(result: AgentResult): Omit<AgentResult, "runId"> {
  const { runId: _runId, ...rest } = result;
  return rest;
}

/**
 * The events of a log as the log of run `runId`: the hash chain binds every event to its run, so
 * a test that copies a run's events to another id (to cut them, as a crash would) seals them again.
 */
export function movedTo(runId: string, events: readonly StoredEvent[]): StoredEvent[] {
  const [first] = events;
  let previous = first?.type === "run.started" && first.schemaVersion >= 2 ? runHashSeed(runId) : null;
  return events.map(({ seq, at, hash: _hash, ...event }) => {
    const stored = stampEvent(event as RunEvent, seq, at, previous);
    previous = stored.hash ?? null;
    return stored;
  });
}
