import { fromCallback } from "xstate";
import { checkReply } from "./check-reply.js";
import { describeThrown, ModelError } from "./errors.js";
import type { ToolRegistry } from "./tool-registry.js";
import type { Message, Model, ModelReply, ToolCall, ToolSpec } from "./types.js";

/** What the machine asks of the effects actor. */
export type EffectRequest =
  | {
      readonly type: "callModel";
      readonly messages: readonly Message[];
      readonly specs: readonly ToolSpec[];
      readonly step: number;
    }
  | { readonly type: "runTools"; readonly calls: readonly ToolCall[] };

/** The domain events the effects produce; the machine's only inputs besides its start. */
export type EffectEvent =
  | { readonly type: "model.replied"; readonly reply: ModelReply }
  | { readonly type: "tool.finished"; readonly callId: string; readonly content: string };

/** The ports the effects reach: the model and the tools. */
export interface EffectPorts {
  readonly model: Model;
  readonly registry: ToolRegistry;
}

type Failure = { readonly type: "effects.failed"; readonly error: ModelError };

/**
 * The one actor that performs the machine's effects: it calls the model and runs tools when asked,
 * and answers with domain events. Tools of one reply run one at a time, in call order. A model
 * failure fails this actor with a `ModelError`, which fails the machine (and so `runAgent`, or the
 * parent's `onError`). Stopping the actor aborts the signal given to the model.
 */
export const runEffects = fromCallback<EffectRequest | Failure, EffectPorts, EffectEvent>(
  ({ input, receive, sendBack, self }) => {
    const controller = new AbortController();
    const { signal } = controller;
    const report = (event: EffectEvent) => {
      if (!signal.aborted) sendBack(event);
    };
    receive((request) => {
      switch (request.type) {
        case "callModel":
          callModel(input.model, request, signal).then(
            (reply) => report({ type: "model.replied", reply }),
            (error: ModelError) => {
              if (!signal.aborted) self.send({ type: "effects.failed", error });
            },
          );
          return;
        case "runTools":
          void runTools(input.registry, request.calls, signal, report);
          return;
        case "effects.failed":
          // Throwing from the actor's own transition is how XState fails it and tells the parent.
          throw request.error;
      }
    });
    return () => controller.abort();
  },
);

async function callModel(
  model: Model,
  request: Extract<EffectRequest, { type: "callModel" }>,
  signal: AbortSignal,
): Promise<ModelReply> {
  const fail = (message: string, cause?: unknown) =>
    new ModelError(`model call ${request.step} failed: ${message}`, {
      messages: [...request.messages],
      step: request.step,
      cause,
    });
  let raw: unknown;
  try {
    raw = await model(request.messages, request.specs, { signal });
  } catch (error) {
    throw fail(describeThrown(error), error);
  }
  const reply = checkReply(raw);
  if (typeof reply === "string") throw fail(`the model returned an invalid reply: ${reply}`);
  return reply;
}

async function runTools(
  registry: ToolRegistry,
  calls: readonly ToolCall[],
  signal: AbortSignal,
  report: (event: EffectEvent) => void,
): Promise<void> {
  for (const call of calls) {
    if (signal.aborted) return;
    const content = await registry.executeCall(call);
    report({ type: "tool.finished", callId: call.id, content });
  }
}
