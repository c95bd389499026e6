import { type AgentContext, type AgentResult, agentMachine, type Message, messagesOf } from "@agentloop/core";
import type { InspectionEvent } from "xstate";

/** One line per message, as the trace shows it. */
export function formatMessage(message: Message): string {
  switch (message.role) {
    case "system":
    case "user":
      return `  ${message.role.padEnd(9)} ${message.content}`;
    case "assistant": {
      const calls = message.toolCalls.map((call) => `${call.name}(${JSON.stringify(call.args)}) [${call.id}]`);
      const text = message.content === "" ? "" : JSON.stringify(message.content);
      return `  assistant ${[text, ...calls].filter(Boolean).join("  →  ")}`;
    }
    case "tool":
      return `  tool      [${message.toolCallId}] ${message.name} = ${message.content}`;
  }
}

/** The closing lines: the status, the answer, and what the run cost. */
export function formatResult(result: AgentResult): string {
  return [
    `result    status=${result.status} steps=${result.steps} tokens=${result.tokens} messages=${result.messages.length}`,
    `answer    ${result.answer === null ? "(none)" : result.answer}`,
  ].join("\n");
}

/**
 * An inspector that prints every state the root machine enters and every message appended,
 * as they happen. It reads only what XState reports, so it works for any run of `agentMachine`.
 */
export function traceInspector(write: (line: string) => void): (event: InspectionEvent) => void {
  let printed = 0;
  const enter = (state: unknown, context: AgentContext) => {
    const messages = messagesOf(context.transcript);
    for (const message of messages.slice(printed)) write(formatMessage(message));
    printed = messages.length;
    const progress = `step ${context.steps}/${context.maxSteps}  tokens ${context.tokens}/${context.tokenBudget}`;
    write(`state     ${String(state).padEnd(16)} ${progress}`);
  };
  let started = false;
  return (event) => {
    if (event.actorRef.sessionId !== event.rootId) return;
    if (event.type !== "@xstate.microstep") return;
    const snapshot = event.snapshot as unknown as { value: unknown; context: AgentContext };
    if (!started) {
      // The initial state is entered with the actor itself; only the moves out of it are microsteps.
      started = true;
      enter(agentMachine.config.initial, snapshot.context);
    }
    enter(snapshot.value, snapshot.context);
  };
}
