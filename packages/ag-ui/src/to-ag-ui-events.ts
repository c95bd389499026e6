import { type BaseEvent, EventType, type Interrupt, type RunFinishedOutcome } from "@ag-ui/core";
import type { AgentResult, AgentStreamEvent, PendingQuestion, ToolCall } from "@agentloop/core";
import { contentText } from "@agentloop/core";
import type { RunEvent } from "@agentloop/core/store";

/** The reason an interrupt for a tool call waiting for approval gives. */
export const APPROVAL_REASON = "tool_approval";
/** The reason an interrupt for a question of an ask-user tool gives: the resume entry's payload is the answer. */
export const QUESTION_REASON = "user_input";

/** The name of the `CUSTOM` event that tells what a run recalled before a turn: `{ query, hits }`, hits with their values. */
export const MEMORY_RECALLED = "agentloop.memory.recalled";
/** The name of the `CUSTOM` event that tells what a tool remembered: `{ toolCallId, key, value }`. */
export const MEMORY_WRITTEN = "agentloop.memory.written";

/** What a resume entry's `payload` answers an approval interrupt with (`resolved` without one approves). */
const DECISION_SCHEMA = {
  type: "object",
  properties: { approved: { type: "boolean" }, reason: { type: "string" } },
  required: ["approved"],
};

/**
 * A run's stream as AG-UI events: `RUN_STARTED`, each model call as a step with its reasoning and
 * text as streamed messages and its tool calls, each tool's result, and `RUN_FINISHED` whose outcome
 * is `interrupt` (one interrupt per call waiting for approval and one per question waiting for an
 * answer, with its `responseSchema`, each with the call id as its id), `cancelled`, or
 * `success` with `{ status, answer, output }` as the result. A run that fails ends with `RUN_ERROR`.
 * What a run with memory recalled, and what its tools remembered, are `CUSTOM` events
 * (`MEMORY_RECALLED`, `MEMORY_WRITTEN`) a page may show.
 * Events of agent tools' children are left out: their calls show as the parent's tool calls.
 */
export async function* toAgUiEvents(
  events: AsyncIterable<AgentStreamEvent>,
  ids: { threadId: string; runId: string },
  /** What `RUN_ERROR` says of the error the run rejected with (default: its message). */
  errorText: (error: unknown) => string = (error) => (error instanceof Error ? error.message : String(error)),
): AsyncIterable<BaseEvent> {
  const { threadId, runId } = ids;
  yield { type: EventType.RUN_STARTED, threadId, runId } as BaseEvent;
  const open = new OpenParts(runId);
  try {
    for await (const event of events) {
      if (event.origin !== undefined) continue;
      yield* open.map(event);
      if (event.type === "finished") {
        // A run cancelled during a model call ends with its step still open.
        yield* open.close();
        // Calls the run closed without running them (a repeated call it stopped on, a refusal, a
        // cancel) have a tool message in the trace but no logged result: shown, so that no client
        // takes them for calls left for it to answer (`pendingToolCallIds`).
        yield* open.closedCalls(event.result);
        yield { type: EventType.RUN_FINISHED, threadId, runId, ...finishing(event.result) } as BaseEvent;
        return;
      }
    }
    yield* open.close();
    yield { type: EventType.RUN_ERROR, message: "the run's stream ended before the run finished" } as BaseEvent;
  } catch (error) {
    yield* open.close();
    yield { type: EventType.RUN_ERROR, message: errorText(error) } as BaseEvent;
  }
}

/**
 * The step, text and reasoning messages being streamed, named per step and attempt so that a
 * retried call never reuses an id. Each attempt of a model call is a step of its own: a failed
 * attempt finishes its step before the next attempt (the same model's retry, or a fallback model)
 * starts it again, so that no step is started twice or left open.
 */
class OpenParts {
  #attempt = 0;
  #step = 0;
  /** The name of the step started and not yet finished. */
  #openStep: string | null = null;
  #text: string | null = null;
  #reasoning: string | null = null;
  #streamedText = false;
  /** The calls shown (`TOOL_CALL_START`) whose result is not shown yet. */
  readonly #unanswered = new Set<string>();

  constructor(readonly runId: string) {}

  /** A `TOOL_CALL_RESULT` for each call shown without a result that the run's trace answers. */
  *closedCalls(result: AgentResult): Iterable<BaseEvent> {
    for (const toolCallId of this.#unanswered) {
      const message = result.messages.findLast(
        (candidate) => candidate.role === "tool" && candidate.toolCallId === toolCallId,
      );
      if (message?.role !== "tool") continue;
      this.#unanswered.delete(toolCallId);
      yield {
        type: EventType.TOOL_CALL_RESULT,
        messageId: `${this.runId}-result-${toolCallId}`,
        toolCallId,
        content: contentText(message.content),
        role: "tool",
      } as BaseEvent;
    }
  }

  *map(event: AgentStreamEvent): Iterable<BaseEvent> {
    switch (event.type) {
      case "step-started":
        yield* this.close();
        this.#step = event.step;
        this.#streamedText = false;
        this.#openStep = `step ${event.step}`;
        yield { type: EventType.STEP_STARTED, stepName: this.#openStep } as BaseEvent;
        return;
      case "reasoning-delta":
        if (event.text === "") return;
        if (this.#reasoning === null) {
          this.#reasoning = `${this.#prefix()}-reasoning`;
          yield { type: EventType.REASONING_START, messageId: this.#reasoning } as BaseEvent;
          yield { type: EventType.REASONING_MESSAGE_START, messageId: this.#reasoning, role: "reasoning" } as BaseEvent;
        }
        yield { type: EventType.REASONING_MESSAGE_CONTENT, messageId: this.#reasoning, delta: event.text } as BaseEvent;
        return;
      case "text-delta":
        if (event.text === "") return;
        yield* this.#closeReasoning();
        if (this.#text === null) {
          this.#text = `${this.#prefix()}-text`;
          this.#streamedText = true;
          yield { type: EventType.TEXT_MESSAGE_START, messageId: this.#text, role: "assistant" } as BaseEvent;
        }
        yield { type: EventType.TEXT_MESSAGE_CONTENT, messageId: this.#text, delta: event.text } as BaseEvent;
        return;
      case "logged":
        yield* this.#logged(event.event);
        return;
      default:
        return;
    }
  }

  /** A failed attempt, a reply, or a call's result, as logged. */
  *#logged(event: RunEvent): Iterable<BaseEvent> {
    switch (event.type) {
      case "model.failed":
        yield* this.close();
        this.#attempt += 1;
        this.#streamedText = false;
        return;
      case "model.replied": {
        yield* this.#closeMessages();
        const { reply } = event;
        if (!this.#streamedText && reply.content !== "") {
          const messageId = `${this.#prefix()}-text`;
          yield { type: EventType.TEXT_MESSAGE_START, messageId, role: "assistant" } as BaseEvent;
          yield { type: EventType.TEXT_MESSAGE_CONTENT, messageId, delta: reply.content } as BaseEvent;
          yield { type: EventType.TEXT_MESSAGE_END, messageId } as BaseEvent;
        }
        for (const call of reply.toolCalls) {
          this.#unanswered.add(call.id);
          yield* toolCallEvents(call, `${this.#prefix()}-text`);
        }
        yield* this.#finishStep();
        return;
      }
      case "tool.finished":
        this.#unanswered.delete(event.callId);
        yield {
          type: EventType.TOOL_CALL_RESULT,
          messageId: `${this.runId}-result-${event.callId}`,
          toolCallId: event.callId,
          content: contentText(event.content),
          role: "tool",
        } as BaseEvent;
        return;
      case "memory.recalled":
        yield {
          type: EventType.CUSTOM,
          name: MEMORY_RECALLED,
          value: { query: event.query, hits: event.hits },
        } as BaseEvent;
        return;
      case "memory.written": {
        const { callId: toolCallId, key, value } = event;
        yield { type: EventType.CUSTOM, name: MEMORY_WRITTEN, value: { toolCallId, key, value } } as BaseEvent;
        return;
      }
      default:
        return;
    }
  }

  /** Ends the text and reasoning being streamed and the step they belong to. */
  *close(): Iterable<BaseEvent> {
    yield* this.#closeMessages();
    yield* this.#finishStep();
  }

  *#closeMessages(): Iterable<BaseEvent> {
    yield* this.#closeReasoning();
    if (this.#text !== null) {
      yield { type: EventType.TEXT_MESSAGE_END, messageId: this.#text } as BaseEvent;
      this.#text = null;
    }
  }

  *#finishStep(): Iterable<BaseEvent> {
    if (this.#openStep === null) return;
    yield { type: EventType.STEP_FINISHED, stepName: this.#openStep } as BaseEvent;
    this.#openStep = null;
  }

  *#closeReasoning(): Iterable<BaseEvent> {
    if (this.#reasoning === null) return;
    yield { type: EventType.REASONING_MESSAGE_END, messageId: this.#reasoning } as BaseEvent;
    yield { type: EventType.REASONING_END, messageId: this.#reasoning } as BaseEvent;
    this.#reasoning = null;
  }

  #prefix(): string {
    return `${this.runId}-${this.#step}${this.#attempt === 0 ? "" : `-${this.#attempt}`}`;
  }
}

function* toolCallEvents(call: ToolCall, parentMessageId: string): Iterable<BaseEvent> {
  yield { type: EventType.TOOL_CALL_START, toolCallId: call.id, toolCallName: call.name, parentMessageId } as BaseEvent;
  yield {
    type: EventType.TOOL_CALL_ARGS,
    toolCallId: call.id,
    delta: call.rawArgs ?? JSON.stringify(call.args),
  } as BaseEvent;
  yield { type: EventType.TOOL_CALL_END, toolCallId: call.id } as BaseEvent;
}

function finishing(result: AgentResult): { outcome: RunFinishedOutcome; result?: unknown } {
  if (result.status === "awaiting_approval" || result.status === "awaiting_input") {
    const interrupts = [
      ...(result.pendingApprovals ?? []).map(interruptFor),
      ...(result.pendingQuestions ?? []).map(questionInterrupt),
    ];
    return { outcome: { type: "interrupt", interrupts } };
  }
  if (result.status === "cancelled") return { outcome: { type: "cancelled" } };
  const value: Record<string, unknown> = { status: result.status, answer: result.answer };
  if (result.output !== undefined) value.output = result.output;
  if (result.guardrail !== undefined) value.guardrail = result.guardrail;
  return { outcome: { type: "success" }, result: value };
}

function interruptFor(call: ToolCall): Interrupt {
  return {
    id: call.id,
    reason: APPROVAL_REASON,
    message: `Approve the call of ${call.name}?`,
    toolCallId: call.id,
    responseSchema: DECISION_SCHEMA,
    metadata: { toolName: call.name, args: call.args },
  };
}

function questionInterrupt(question: PendingQuestion): Interrupt {
  const { id, schema } = question;
  const shape = schema === undefined ? {} : { responseSchema: { ...schema } };
  return { id, reason: QUESTION_REASON, message: question.question, toolCallId: id, ...shape };
}
