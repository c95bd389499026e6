import { fromCallback } from "xstate";
import { checkReply } from "./check-reply.js";
import { describeThrown, ModelError } from "./errors.js";
import type { Journal } from "./journal.js";
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

/** The ports the effects reach: the model, the tools, and the run's log when it is kept. */
export interface EffectPorts {
  readonly model: Model;
  readonly registry: ToolRegistry;
  readonly journal?: Journal;
}

type Failure = { readonly type: "effects.failed"; readonly error: unknown };

/**
 * The one actor that performs the machine's effects: it calls the model and runs tools when asked,
 * and answers with domain events. With a journal it logs each event before the machine sees it,
 * and first serves what the log already holds, so that a resumed run calls nothing twice. Tools of
 * one reply run one at a time, in call order. A failure (the model's, as a `ModelError`, or the
 * store's) fails this actor, which fails the machine; stopping it aborts the signal.
 */
export const runEffects = fromCallback<EffectRequest | Failure, EffectPorts | null, EffectEvent>(
  ({ input, receive, sendBack, self }) => {
    if (input === null) throw new TypeError("agentMachine needs a model and a registry in its input to run");
    const controller = new AbortController();
    const { signal } = controller;
    const settle = (work: Promise<void>) =>
      work.catch((error: unknown) => {
        if (!signal.aborted) self.send({ type: "effects.failed", error });
      });
    const report = (event: EffectEvent) => {
      if (!signal.aborted) sendBack(event);
    };
    receive((request) => {
      switch (request.type) {
        case "callModel":
          settle(replyTo(input, request, signal).then(report));
          return;
        case "runTools":
          settle(runTools(input, request.calls, signal, report));
          return;
        case "effects.failed":
          // Throwing from the actor's own transition is how XState fails it and tells the parent.
          throw request.error;
      }
    });
    return () => controller.abort();
  },
);

async function replyTo(
  { model, journal }: EffectPorts,
  request: Extract<EffectRequest, { type: "callModel" }>,
  signal: AbortSignal,
): Promise<EffectEvent> {
  if (journal?.replaying) return { type: "model.replied", reply: journal.take("model.replied").reply };
  const reply = await callModel(model, request, signal);
  await journal?.record({ type: "model.replied", reply });
  return { type: "model.replied", reply };
}

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
  ports: EffectPorts,
  calls: readonly ToolCall[],
  signal: AbortSignal,
  report: (event: EffectEvent) => void,
): Promise<void> {
  for (const call of calls) {
    if (signal.aborted) return;
    report({ type: "tool.finished", callId: call.id, content: await observe(ports, call) });
  }
}

/** The observation for one call: logged before, re-derived after an interruption, or run now. */
async function observe({ registry, journal }: EffectPorts, call: ToolCall): Promise<string> {
  if (journal === undefined) return registry.executeCall(call);
  if (journal.replaying) {
    journal.take("tool.started", call.id);
    if (journal.replaying) return journal.take("tool.finished", call.id).content;
    // The log ends inside this call: the process died while it ran, and its result was lost.
    const content = registry.isIdempotent(call.name) ? await registry.executeCall(call) : lostResult(call);
    await journal.record({ type: "tool.finished", callId: call.id, content });
    return content;
  }
  await journal.record({ type: "tool.started", callId: call.id, name: call.name });
  const content = await registry.executeCall(call);
  await journal.record({ type: "tool.finished", callId: call.id, content });
  return content;
}

function lostResult(call: ToolCall): string {
  return (
    `ERROR: the result of ${call.name} was lost: the run was interrupted while it ran, so it may or may not ` +
    "have taken effect. Check its effect before you call it again."
  );
}
