import type { ModelDelta } from "@agentloop/core/adapter";
import type { ChatCompletion, ChatCompletionChunk } from "openai/resources/chat/completions";
import { OpenAIStreamError } from "./errors.js";

/** One tool call being assembled from its fragments. */
interface PartialCall {
  id?: string;
  type?: string;
  name?: string;
  args: string;
}

/** The delta fields read, including the reasoning fields compatible servers add. */
interface WireDelta {
  readonly content?: unknown;
  readonly refusal?: unknown;
  readonly reasoning_content?: unknown;
  readonly reasoning?: unknown;
  readonly tool_calls?: unknown;
}

interface WireCallDelta {
  readonly index?: unknown;
  readonly id?: unknown;
  readonly type?: unknown;
  readonly function?: { readonly name?: unknown; readonly arguments?: unknown } | null;
}

/**
 * Rebuilds the chat completion a stream of chunks adds up to, giving back the deltas (text,
 * reasoning, tool-call arguments) each chunk carries. The result has the non-streaming shape
 * (text, refusal, `reasoning_content`/`reasoning`, tool calls by index, finish reason, the usage of
 * the last chunk that had one), so `fromOpenAICompletion` maps both paths alike. The SDK's own
 * stream helper is not used: it overwrites the reasoning fields instead of joining them.
 */
export class CompletionAccumulator {
  #head: Pick<ChatCompletion, "id" | "created" | "model"> | undefined;
  #content: string | undefined;
  #refusal: string | undefined;
  #reasoningContent: string | undefined;
  #reasoning: string | undefined;
  readonly #calls = new Map<number, PartialCall>();
  /** Where each wire index's call is kept: a server that reuses an index for a new call (a new id) gets a new place. */
  readonly #places = new Map<number, number>();
  #finishReason: string | undefined;
  #usage: ChatCompletion["usage"];

  /** Adds one chunk, in arrival order, and returns the deltas it carries. */
  add(chunk: ChatCompletionChunk): ModelDelta[] {
    const deltas: ModelDelta[] = [];
    this.#head ??= { id: chunk.id, created: chunk.created, model: chunk.model };
    if (chunk.usage) this.#usage = chunk.usage;
    const choice = chunk.choices?.find((candidate) => candidate.index === 0) ?? chunk.choices?.[0];
    if (choice === undefined) return deltas;
    if (typeof choice.finish_reason === "string") this.#finishReason = choice.finish_reason;
    const delta = (choice.delta ?? {}) as WireDelta;
    if (typeof delta.content === "string" && delta.content !== "") {
      this.#content = (this.#content ?? "") + delta.content;
      deltas.push({ type: "text-delta", text: delta.content });
    }
    if (typeof delta.refusal === "string" && delta.refusal !== "") {
      this.#refusal = (this.#refusal ?? "") + delta.refusal;
      deltas.push({ type: "text-delta", text: delta.refusal });
    }
    if (typeof delta.reasoning_content === "string") {
      this.#reasoningContent = (this.#reasoningContent ?? "") + delta.reasoning_content;
      if (delta.reasoning_content !== "") deltas.push({ type: "reasoning-delta", text: delta.reasoning_content });
    }
    if (typeof delta.reasoning === "string") {
      this.#reasoning = (this.#reasoning ?? "") + delta.reasoning;
      // A server that mirrors each piece into both fields (StepFun) is told once, as the reply keeps
      // `reasoning_content` over `reasoning`.
      if (delta.reasoning !== "" && typeof delta.reasoning_content !== "string") {
        deltas.push({ type: "reasoning-delta", text: delta.reasoning });
      }
    }
    if (Array.isArray(delta.tool_calls)) {
      for (const [position, call] of (delta.tool_calls as WireCallDelta[]).entries()) {
        const piece = this.#addCall(call, position);
        if (piece !== undefined) deltas.push(piece);
      }
    }
    return deltas;
  }

  /** The completion the `chunks` added up to; throws `OpenAIStreamError` when no chunk carried a finish reason. */
  completion(chunks: number): ChatCompletion {
    if (this.#finishReason === undefined || this.#head === undefined) {
      throw new OpenAIStreamError(
        `the stream ended after ${chunks} chunks without a finish_reason: the reply is incomplete`,
      );
    }
    const calls = [...this.#calls.entries()].sort(([a], [b]) => a - b).map(([, call]) => call);
    const message = {
      role: "assistant",
      content: this.#content ?? null,
      refusal: this.#refusal ?? null,
      ...(this.#reasoningContent === undefined ? {} : { reasoning_content: this.#reasoningContent }),
      ...(this.#reasoning === undefined ? {} : { reasoning: this.#reasoning }),
      ...(calls.length === 0
        ? {}
        : {
            tool_calls: calls.map((call) => ({
              id: call.id,
              type: call.type ?? "function",
              function: { name: call.name, arguments: call.args },
            })),
          }),
    };
    return {
      ...this.#head,
      object: "chat.completion",
      choices: [{ index: 0, message, finish_reason: this.#finishReason, logprobs: null }],
      ...(this.#usage ? { usage: this.#usage } : {}),
    } as ChatCompletion;
  }

  #addCall(delta: WireCallDelta, position: number): ModelDelta | undefined {
    const wireIndex = typeof delta.index === "number" ? delta.index : position;
    let index = this.#places.get(wireIndex) ?? wireIndex;
    const newId = typeof delta.id === "string" && delta.id !== "" ? delta.id : undefined;
    const current = this.#calls.get(index);
    // Ollama (ollama/ollama#15457) sends every call of a parallel batch with index 0: a different
    // id at a known index is a new call, kept after the others.
    if (current?.id && newId !== undefined && newId !== current.id) {
      index = Math.max(...this.#calls.keys(), ...this.#places.values()) + 1;
      this.#places.set(wireIndex, index);
    }
    const known = this.#calls.get(index);
    const call = known ?? { args: "" };
    if (known === undefined) this.#calls.set(index, call);
    const id = typeof delta.id === "string" && call.id === undefined ? delta.id : undefined;
    const name = typeof delta.function?.name === "string" && call.name === undefined ? delta.function.name : undefined;
    const args = typeof delta.function?.arguments === "string" ? delta.function.arguments : "";
    if (id !== undefined) call.id = id;
    if (name !== undefined) call.name = name;
    if (typeof delta.type === "string") call.type = delta.type;
    call.args += args;
    if (id === undefined && name === undefined && args === "") return undefined;
    return {
      type: "tool-call-delta",
      index,
      ...(id === undefined ? {} : { id }),
      ...(name === undefined ? {} : { name }),
      argsText: args,
    };
  }
}
