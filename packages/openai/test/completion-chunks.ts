import type { FakeStream, SseEvent } from "@agentloop/provider-testkit";

interface Body {
  readonly id: string;
  readonly created: number;
  readonly model: string;
  readonly system_fingerprint?: string;
  readonly usage?: unknown;
  readonly choices: readonly {
    readonly finish_reason: string;
    readonly message: {
      readonly content: string | null;
      readonly refusal?: string | null;
      readonly reasoning_content?: string;
      readonly reasoning?: string;
      readonly tool_calls?: readonly { readonly id?: string; readonly function: { name: string; arguments: string } }[];
    };
  }[];
}

/** Cuts `text` into pieces of at most `size` characters ("" stays one empty piece). */
function pieces(text: string, size = 7): string[] {
  if (text === "") return [""];
  const out: string[] = [];
  for (let at = 0; at < text.length; at += size) out.push(text.slice(at, at + size));
  return out;
}

/**
 * The SSE stream a completion body adds up to, chunked the way OpenAI streams are recorded (see
 * fixtures/streams.ts): a first chunk with the role; the reasoning field (a compatible server's),
 * then the text, in small pieces; each tool call opened with its index, id, name and empty
 * arguments, then its arguments in fragments; a chunk with an empty delta and the finish reason;
 * the usage in a last chunk with no choices; then `[DONE]`.
 */
export function completionChunks(payload: unknown, headers?: Readonly<Record<string, string>>): FakeStream {
  const body = payload as Body;
  const choice = body.choices[0];
  const message = choice?.message;
  const head = { id: body.id, object: "chat.completion.chunk", created: body.created, model: body.model };
  const chunk = (delta: Record<string, unknown>, finish: string | null = null): SseEvent => ({
    data: JSON.stringify({
      ...head,
      system_fingerprint: body.system_fingerprint,
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
    }),
  });
  const calls = message?.tool_calls ?? [];
  const reasoningField = message?.reasoning_content !== undefined ? "reasoning_content" : "reasoning";
  const reasoning = message?.reasoning_content ?? message?.reasoning;
  const events: SseEvent[] = [
    chunk({ role: "assistant", content: calls.length > 0 && !message?.content ? null : "", refusal: null }),
    ...(reasoning === undefined ? [] : pieces(reasoning).map((text) => chunk({ [reasoningField]: text }))),
    ...(message?.content ? pieces(message.content).map((text) => chunk({ content: text })) : []),
    ...(message?.refusal ? pieces(message.refusal).map((text) => chunk({ refusal: text })) : []),
    ...calls.flatMap((call, index) => [
      chunk({
        tool_calls: [{ index, id: call.id, type: "function", function: { name: call.function.name, arguments: "" } }],
      }),
      ...pieces(call.function.arguments)
        .filter((text) => text !== "")
        .map((text) => chunk({ tool_calls: [{ index, function: { arguments: text } }] })),
    ]),
    chunk({}, choice?.finish_reason ?? "stop"),
    ...(body.usage === undefined ? [] : [{ data: JSON.stringify({ ...head, choices: [], usage: body.usage }) }]),
    { data: "[DONE]" },
  ];
  return { events, ...(headers === undefined ? {} : { headers }) };
}
