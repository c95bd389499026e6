import type { AgentResult, AgentStreamEvent, ModelReply } from "@agentloop/core";
import { chainCallId, contentText } from "@agentloop/core";
import type { RunEvent } from "@agentloop/core/store";
import type { FinishReason, UIMessageChunk } from "ai";

/** What the `finish` chunk carries as `messageMetadata`: the run's id, its status and what the status brings. */
export interface RunMetadata {
  readonly runId?: string;
  readonly status: AgentResult["status"];
  readonly output?: unknown;
  readonly guardrail?: AgentResult["guardrail"];
  /** In a run with handoffs, the agent that answered last. */
  readonly agent?: string;
}

/** What a `data-handoff` part holds: the conversation went from agent `from` to agent `to` by call `toolCallId`. */
export interface HandoffData {
  readonly toolCallId: string;
  readonly from: string;
  readonly to: string;
}

/**
 * What a `data-question` part holds: a question a running tool asked (its context's `ask`), under
 * the call's id (chained for a child's call). The call's tool part waits in `input-available`; the
 * page answers with `addToolOutput` on that call, with a value of the shape `schema` (any JSON
 * when absent), and the call runs again with the answer.
 */
export interface QuestionData {
  readonly toolCallId: string;
  readonly question: string;
  readonly schema?: Readonly<Record<string, unknown>>;
}

/**
 * What a `data-memory` part holds: the memories a run recalled before a turn (the hits, best
 * first, with their values, as its log holds them), or one a tool wrote (`remember`).
 */
export type MemoryData =
  | {
      readonly kind: "recalled";
      readonly query: string;
      readonly hits: readonly { readonly key: string; readonly value: string; readonly score: number }[];
    }
  | { readonly kind: "written"; readonly toolCallId: string; readonly key: string; readonly value: string };

/** The options of `toUIMessageStream`. */
export interface UIMessageStreamOptions {
  /** The id of the assistant message the chunks write (`start`'s `messageId`); a resumed turn passes the message it continues. */
  readonly messageId?: string;
  /** Called with every chunk as it is enqueued (a chat handler keeps them to replay a turn to a client that reconnects). */
  readonly onChunk?: (chunk: UIMessageChunk) => void;
  /** What the `error` chunk says of the error the run rejected with (default: its message). */
  readonly errorText?: (error: unknown) => string;
}

/**
 * The AI SDK UI message stream of a run (what `useChat` reads): `start`, then per model call
 * `start-step`, its reasoning and text as start/delta/end, its tool calls as input parts, and
 * `finish-step` once the step's tools have answered; a failed attempt that is retried ends with
 * `reset-step` (its streamed parts are dropped, the retry writes them again); a call that waits for
 * a decision becomes `tool-approval-request` (approval id = the call id, chained for a child's
 * call); a decision, `tool-approval-response` (and `tool-output-denied` when refused); a question
 * of an ask-user tool stays a tool part in `input-available`, as a client-side tool's call does,
 * for the page to answer with `addToolOutput`, and so does the call of a tool that asked a question
 * while it ran (`ctx.ask`), with the question as a `data-question` part (`QuestionData`); what a run
 * with memory recalled before a turn, and what its tools remembered, as `data-memory` parts
 * (`MemoryData`); last
 * `finish` with `RunMetadata` — a cancelled run ends as `streamText` ends an aborted stream, with
 * its metadata as `message-metadata` and `abort` (the reason, when one was given) — or `error` when
 * the run rejects. An agent tool's child shows its tool
 * calls, approvals and results (ids chained under the agent tool's call), not its text: its answer
 * is the agent tool's output. A handoff gives its call its output (`transferred to <name>`) and
 * writes a `data-handoff` part (`HandoffData`): the agent that answers from there; `RunMetadata`
 * names the agent that answered last. Never throws: every failure is an `error` chunk.
 */
export function toUIMessageStream(
  events: AsyncIterable<AgentStreamEvent>,
  options: UIMessageStreamOptions = {},
): ReadableStream<UIMessageChunk> {
  const iterator = events[Symbol.asyncIterator]();
  const mapper = new ChunkMapper();
  let started = false;
  return new ReadableStream<UIMessageChunk>({
    async pull(controller) {
      const emit = (chunk: UIMessageChunk): void => {
        options.onChunk?.(chunk);
        controller.enqueue(chunk);
      };
      if (!started) {
        started = true;
        emit(options.messageId === undefined ? { type: "start" } : { type: "start", messageId: options.messageId });
      }
      try {
        // A pull that enqueues nothing is not called again: read on until an event maps to a chunk.
        for (;;) {
          const next = await iterator.next();
          if (next.done === true) {
            for (const chunk of mapper.end()) emit(chunk);
            controller.close();
            return;
          }
          const chunks = mapper.map(next.value);
          for (const chunk of chunks) emit(chunk);
          if (chunks.length > 0) return;
        }
      } catch (error) {
        for (const chunk of mapper.close()) emit(chunk);
        const errorText = options.errorText?.(error) ?? (error instanceof Error ? error.message : String(error));
        emit({ type: "error", errorText });
        controller.close();
      }
    },
    async cancel() {
      await iterator.return?.();
    },
  });
}

type Open = { text: boolean; reasoning: boolean; inputs: Map<number, string> };

/** Turns each run event into the chunks it stands for; remembers only the step in progress. */
class ChunkMapper {
  #step: number | null = null;
  #open: Open = { text: false, reasoning: false, inputs: new Map() };
  #denied = new Set<string>();
  #finished = false;
  /** Why the run was cancelled, once its `run.cancelled` is logged (`null`: no reason given). */
  #cancelled: string | null | undefined;
  /** The memory parts so far: each gets an id of its own, so that none replaces another on the page. */
  #memories = 0;

  map(event: AgentStreamEvent): UIMessageChunk[] {
    if (event.origin !== undefined) return this.#child(event, event.origin.callPath);
    switch (event.type) {
      case "step-started":
        return this.#startStep(event.step);
      case "text-delta":
        return this.#delta("text", event.step, event.text);
      case "reasoning-delta":
        return this.#delta("reasoning", event.step, event.text);
      case "tool-call-delta":
        return this.#inputDelta(event.index, event.id, event.name, event.argsText);
      case "logged":
        if (event.event.type === "model.replied") return this.#finishReply(this.#step, event.event.reply);
        if (event.event.type === "model.failed") return [...this.close(), { type: "reset-step" }];
        return this.#logged(event.event, []);
      default:
        return this.#toolEvent(event, []);
    }
  }

  /** The chunks that end the stream after the run's last event. */
  end(): UIMessageChunk[] {
    return this.#finished ? [] : this.close();
  }

  /** Ends the text and reasoning parts left open (the stream ends or the attempt failed). */
  close(): UIMessageChunk[] {
    const chunks: UIMessageChunk[] = [];
    if (this.#open.reasoning) chunks.push({ type: "reasoning-end", id: partId("reasoning", this.#step) });
    if (this.#open.text) chunks.push({ type: "text-end", id: partId("text", this.#step) });
    this.#open = { text: false, reasoning: false, inputs: new Map() };
    return chunks;
  }

  #startStep(step: number): UIMessageChunk[] {
    // A retried attempt starts the same step again: reset-step kept its step-start.
    if (this.#step === step) return [];
    const chunks: UIMessageChunk[] = this.#step === null ? [] : [{ type: "finish-step" }];
    this.#step = step;
    chunks.push({ type: "start-step" });
    return chunks;
  }

  #delta(kind: "text" | "reasoning", step: number | null, delta: string): UIMessageChunk[] {
    const id = partId(kind, step);
    const chunks: UIMessageChunk[] = [];
    if (kind === "text") {
      if (this.#open.reasoning) {
        chunks.push({ type: "reasoning-end", id: partId("reasoning", step) });
        this.#open.reasoning = false;
      }
      if (!this.#open.text) chunks.push({ type: "text-start", id });
      this.#open.text = true;
      chunks.push({ type: "text-delta", id, delta });
    } else {
      if (!this.#open.reasoning) chunks.push({ type: "reasoning-start", id });
      this.#open.reasoning = true;
      chunks.push({ type: "reasoning-delta", id, delta });
    }
    return chunks;
  }

  #inputDelta(index: number, id: string | undefined, name: string | undefined, text: string) {
    const known = this.#open.inputs.get(index);
    const chunks: UIMessageChunk[] = [];
    if (known === undefined) {
      // Without the call's id and name the part cannot start; the reply's call will show it whole.
      if (id === undefined || name === undefined) return chunks;
      this.#open.inputs.set(index, id);
      chunks.push({ type: "tool-input-start", toolCallId: id, toolName: name });
    }
    const toolCallId = known ?? id;
    if (toolCallId !== undefined && text !== "")
      chunks.push({ type: "tool-input-delta", toolCallId, inputTextDelta: text });
    return chunks;
  }

  #finishReply(step: number | null, reply: ModelReply): UIMessageChunk[] {
    const chunks: UIMessageChunk[] = [];
    // A model that does not stream gives its reasoning and text only in the reply.
    if (!this.#open.text && !this.#open.reasoning) {
      for (const part of reply.reasoning ?? []) {
        if (part.type === "reasoning" && part.text !== "") chunks.push(...this.#delta("reasoning", step, part.text));
      }
    }
    if (!this.#open.text && reply.content !== "") chunks.push(...this.#delta("text", step, reply.content));
    chunks.push(...this.close());
    for (const call of reply.toolCalls) {
      chunks.push({ type: "tool-input-available", toolCallId: call.id, toolName: call.name, input: call.args });
    }
    return chunks;
  }

  #child(event: AgentStreamEvent, path: readonly string[]): UIMessageChunk[] {
    if (event.type === "logged" && event.event.type === "model.replied") {
      return event.event.reply.toolCalls.map((call) => ({
        type: "tool-input-available",
        toolCallId: chainedId(path, call.id),
        toolName: call.name,
        input: call.args,
      }));
    }
    if (event.type === "finished") return [];
    if (event.type === "logged") return this.#logged(event.event, path);
    return this.#toolEvent(event, path);
  }

  /** A decision given or a call's result, from the run at `path` (the run's own: none). */
  #logged(event: RunEvent, path: readonly string[]): UIMessageChunk[] {
    switch (event.type) {
      case "approval.decided": {
        const id = chainedId(path, event.callId);
        const { approved, reason } = event;
        const response: UIMessageChunk =
          reason === undefined
            ? { type: "tool-approval-response", approvalId: id, approved }
            : { type: "tool-approval-response", approvalId: id, approved, reason };
        if (approved) return [response];
        this.#denied.add(id);
        return [response, { type: "tool-output-denied", toolCallId: id }];
      }
      case "tool.finished": {
        const id = chainedId(path, event.callId);
        if (this.#denied.has(id)) return [];
        const content = contentText(event.content);
        return event.isError === true
          ? [{ type: "tool-output-error", toolCallId: id, errorText: content }]
          : [{ type: "tool-output-available", toolCallId: id, output: parseOutput(content) }];
      }
      case "run.cancelled":
        // Told at the end as `abort`'s reason, as streamText tells why it was aborted.
        if (path.length === 0) this.#cancelled = event.reason ?? null;
        return [];
      case "handoff": {
        // The handoff call was answered at once: its part gets its output, and the message says who answers from here.
        if (path.length > 0) return [];
        const data: HandoffData = { toolCallId: event.callId, from: event.from, to: event.to };
        return [
          { type: "tool-output-available", toolCallId: event.callId, output: `transferred to ${event.to}` },
          { type: "data-handoff", id: event.callId, data },
        ];
      }
      case "tool.asked": {
        const id = chainedId(path, event.callId);
        const data: QuestionData = {
          toolCallId: id,
          question: event.question,
          ...(event.schema === undefined ? {} : { schema: event.schema }),
        };
        return [{ type: "data-question", id, data }];
      }
      case "memory.recalled": {
        const data: MemoryData = { kind: "recalled", query: event.query, hits: event.hits };
        return [{ type: "data-memory", id: `memory-${++this.#memories}`, data }];
      }
      case "memory.written": {
        const { key, value } = event;
        const data: MemoryData = { kind: "written", toolCallId: chainedId(path, event.callId), key, value };
        return [{ type: "data-memory", id: `memory-${++this.#memories}`, data }];
      }
      default:
        return [];
    }
  }

  #toolEvent(event: AgentStreamEvent, path: readonly string[]): UIMessageChunk[] {
    switch (event.type) {
      case "decision-requested": {
        const id = chainedId(path, event.call.id);
        return [{ type: "tool-approval-request", approvalId: id, toolCallId: id }];
      }
      case "finished":
        return this.#finish(event.result);
      default:
        return [];
    }
  }

  #finish(result: AgentResult): UIMessageChunk[] {
    this.#finished = true;
    const chunks = this.close();
    if (this.#step !== null) chunks.push({ type: "finish-step" });
    const metadata: RunMetadata = {
      status: result.status,
      ...(result.runId === undefined ? {} : { runId: result.runId }),
      ...(result.output === undefined ? {} : { output: result.output }),
      ...(result.guardrail === undefined ? {} : { guardrail: result.guardrail }),
      ...(result.agent === undefined ? {} : { agent: result.agent }),
    };
    if (result.status === "cancelled") {
      // As streamText ends a stream that was aborted: no finish, the reason (when known) on `abort`.
      chunks.push({ type: "message-metadata", messageMetadata: metadata });
      const reason = this.#cancelled;
      chunks.push(typeof reason === "string" ? { type: "abort", reason } : { type: "abort" });
      return chunks;
    }
    chunks.push({ type: "finish", finishReason: finishReasonOf(result.status), messageMetadata: metadata });
    return chunks;
  }
}

/** A child's call id as its root names it (`chainCallId` over the agent tool calls above it); the run's own call's id as it is. */
function chainedId(path: readonly string[], id: string): string {
  if (path.length === 0) return id;
  let chained = chainCallId(path.at(-1) as string, id);
  for (let i = path.length - 2; i >= 0; i--) chained = chainCallId(path[i] as string, chained, true);
  return chained;
}

function partId(kind: "text" | "reasoning", step: number | null): string {
  return `${kind}-${step ?? 0}`;
}

/** A tool's result as the page gets it: the JSON value it was logged as, or the text itself. */
function parseOutput(content: string): unknown {
  try {
    return JSON.parse(content) as unknown;
  } catch {
    return content;
  }
}

function finishReasonOf(status: AgentResult["status"]): FinishReason {
  switch (status) {
    case "done":
      return "stop";
    case "awaiting_approval":
    case "awaiting_input":
      return "tool-calls";
    case "guardrail_tripped":
    case "refused":
      return "content-filter";
    case "step_limit":
    case "token_budget":
      return "length";
    default:
      return "other";
  }
}
