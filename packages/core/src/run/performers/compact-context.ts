import type { AgentRequest, ContextCompacted, Model } from "../../data/index.js";
import { copyReply, describeThrown, ModelError } from "../../data/index.js";
import type { EventAnswer } from "./event-answer.js";

/** A machine's request for a compacted view. */
export type CompactionRequest = Extract<AgentRequest, { type: "compactContext" }>;

/**
 * What compacting came to: the event that answers the request, or the summarizer's failure, which
 * fails the run as a model call without retries does (a compaction is not retried).
 */
export type CompactionAnswer = EventAnswer<ContextCompacted> | { readonly type: "failed"; readonly error: ModelError };

/**
 * Answers a `compactContext` request: `trim` needs nothing; `summarize` asks the summarizer, with
 * no tools, for a summary of the messages being hidden. Never rejects: a summarizer that throws,
 * returns something that is not a reply, or an empty summary is a `failed` answer with a
 * `ModelError` naming the model call the summary was for, as a failed model call is.
 */
export async function compactContext(
  summarizer: Model,
  request: CompactionRequest,
  options: { readonly signal: AbortSignal },
): Promise<CompactionAnswer> {
  const { step, keptFrom } = request;
  if (request.strategy === "trim") return { type: "event", event: { type: "context.compacted", step, keptFrom } };
  let raw: unknown;
  try {
    raw = await summarizer(request.prompt, [], { signal: options.signal });
  } catch (error) {
    return failed(request, describeThrown(error, { byClass: true }), error);
  }
  const reply = copyReply(raw);
  if (typeof reply === "string") return failed(request, `the summarizer returned an invalid reply: ${reply}`);
  if (reply.content.trim() === "") return failed(request, "the summarizer returned no summary");
  const usage = reply.usage === undefined ? {} : { usage: reply.usage };
  return { type: "event", event: { type: "context.compacted", step, keptFrom, summary: reply.content, ...usage } };
}

function failed(request: CompactionRequest, message: string, cause?: unknown): CompactionAnswer {
  const { step } = request;
  const error = new ModelError(`the summary before model call ${step} failed: ${message}`, {
    messages: request.prompt,
    step,
    cause,
  });
  return { type: "failed", error };
}
