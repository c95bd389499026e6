import type { Usage } from "@agentloop/core";
import { type Attributes, type Context, type Span, SpanKind, SpanStatusCode, type Tracer } from "@opentelemetry/api";
import { answerMessages } from "./content.js";
import { ATTR, RETRY_WAIT_SPAN, usageAttributes } from "./semconv.js";

/**
 * The spans of a step's attempts beyond its reply: a failed model call, the backoff before it is
 * tried again, and the summarizer's call that compacts what the model is shown; and how an error
 * is recorded on a span. Live runs and logs make them through the same functions, so that both
 * give the same spans.
 */

/** A failed model call as its `chat` span tells it: `error.type` and the status message. */
export interface Failure {
  readonly type: string;
  readonly message: string;
}

/**
 * A failed model call from the line the log keeps (`model.failed`'s `error`: core's `model call N
 * failed: ` and the error's name and message): the name as `error.type` (`ModelError` for a reply
 * the run could not use, `_OTHER` for a thrown value that is not an Error).
 */
export function loggedFailure(logged: string): Failure {
  const text = logged.replace(/^model call \d+ failed: /, "");
  if (text.startsWith(INVALID_REPLY)) return { type: "ModelError", message: text };
  const name = /^([A-Za-z_$][\w$]*): /.exec(text)?.[1];
  return name === undefined ? { type: "_OTHER", message: text } : { type: name, message: text.slice(name.length + 2) };
}

/**
 * A failed model call from what the model threw, as the log will word it: an Error's class as
 * `error.type` (the log keeps its `name`, which is the same for errors that set it) and its message.
 */
export function thrownFailure(thrown: unknown, describe: (thrown: unknown) => string): Failure {
  if (thrown instanceof Error) return { type: errorType(thrown), message: thrown.message };
  return { type: "_OTHER", message: describe(thrown) };
}

/** A reply the run cannot use, as core words it. */
export const INVALID_REPLY = "the model returned an invalid reply";

/** Ends a model call's `chat` span as failed: `error.type`, an `exception` event, and the error status. */
export function endFailed(chat: Span, failure: Failure, at?: Date): void {
  chat.setAttribute(ATTR.errorType, failure.type);
  // No stack trace: a log keeps none, and spans from a log are the live run's.
  chat.addEvent("exception", { "exception.type": failure.type, "exception.message": failure.message }, at);
  chat.setStatus({ code: SpanStatusCode.ERROR, message: failure.message });
  chat.end(at);
}

/** A low-cardinality name for a thrown value: its `name` (`ModelError`, `RateLimitError`...), or `_OTHER`. */
export function errorType(error: unknown): string {
  if (typeof error !== "object" || error === null) return "_OTHER";
  const { name } = error as { name?: unknown };
  if (typeof name === "string" && name !== "" && name !== "Error") return name;
  const className = (error as { constructor?: { name?: unknown } }).constructor?.name;
  if (typeof className === "string" && className !== "" && className !== "Object") return className;
  return typeof name === "string" && name !== "" ? name : "_OTHER";
}

/** Where a turn's extra spans go, and what each of them says about the run. */
export interface SpanPlace {
  readonly tracer: Tracer;
  readonly parent: Context;
  readonly base: Attributes;
}

/** The backoff before model call `step` is tried again on the same model, from the failure to the next attempt. */
export function waitSpan(place: SpanPlace, step: number, start: Date, end: Date): void {
  const attributes = { [ATTR.conversationId]: place.base[ATTR.conversationId], [ATTR.step]: step };
  place.tracer
    .startSpan(RETRY_WAIT_SPAN, { kind: SpanKind.INTERNAL, attributes, startTime: start }, place.parent)
    .end(end);
}

/** What a compaction that asked the summarizer came to, as its `context.compacted` event says it. */
export interface Summary {
  readonly step: number;
  readonly keptFrom: number;
  readonly summary: string;
  readonly usage?: Usage | undefined;
}

/**
 * The summarizer's call as a `chat` span: its tokens, the model call the summary is for and the
 * first message still shown; the summary itself with `captureContent`. `place.base` names the
 * summarizer's model.
 */
export function summarySpan(place: SpanPlace, summary: Summary, content: boolean, start: Date, end: Date): void {
  const attributes: Attributes = {
    ...place.base,
    [ATTR.compactionStep]: summary.step,
    [ATTR.keptFrom]: summary.keptFrom,
  };
  if (summary.usage !== undefined) Object.assign(attributes, usageAttributes(summary.usage));
  if (content) attributes[ATTR.outputMessages] = answerMessages(summary.summary);
  const name = typeof place.base[ATTR.requestModel] === "string" ? `chat ${place.base[ATTR.requestModel]}` : "chat";
  place.tracer.startSpan(name, { kind: SpanKind.CLIENT, attributes, startTime: start }, place.parent).end(end);
}

/** Records `error` on `span`: the exception, `error.type` (its name), and the error status with its message. */
export function recordError(span: Span, error: unknown): void {
  const message = error instanceof Error ? error.message : String(error);
  span.recordException(error instanceof Error ? error : message);
  span.setAttribute(ATTR.errorType, errorType(error));
  span.setStatus({ code: SpanStatusCode.ERROR, message });
}
