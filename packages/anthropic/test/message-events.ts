import type { FakeStream, SseEvent } from "@agentloop/provider-testkit";

type Block = Record<string, unknown>;

interface Body {
  readonly id: string;
  readonly model: string;
  readonly content: readonly Block[];
  readonly stop_reason: string;
  readonly stop_details?: unknown;
  readonly usage?: Record<string, unknown>;
}

/** Cuts `text` into pieces of at most `size` characters ("" stays one empty piece). */
function pieces(text: string, size = 9): string[] {
  if (text === "") return [""];
  const out: string[] = [];
  for (let at = 0; at < text.length; at += size) out.push(text.slice(at, at + size));
  return out;
}

const event = (data: Record<string, unknown>): SseEvent => ({ event: String(data.type), data: JSON.stringify(data) });

/** The start of a block, empty the way the API starts it, and the deltas that fill it. */
function blockEvents(block: Block, index: number): SseEvent[] {
  const delta = (payload: Record<string, unknown>) => event({ type: "content_block_delta", index, delta: payload });
  let start: Block = block;
  let deltas: SseEvent[] = [];
  if (block.type === "text") {
    start = { type: "text", text: "" };
    deltas = pieces(String(block.text)).map((text) => delta({ type: "text_delta", text }));
  } else if (block.type === "thinking") {
    start = { type: "thinking", thinking: "", signature: "" };
    deltas = [
      ...(block.thinking === ""
        ? []
        : pieces(String(block.thinking)).map((thinking) => delta({ type: "thinking_delta", thinking }))),
      delta({ type: "signature_delta", signature: block.signature }),
    ];
  } else if (block.type === "tool_use") {
    start = { ...block, input: {} };
    const json = JSON.stringify(block.input ?? {});
    deltas = pieces(json === "{}" ? "" : json).map((partial_json) => delta({ type: "input_json_delta", partial_json }));
  }
  return [
    event({ type: "content_block_start", index, content_block: start }),
    ...deltas,
    event({ type: "content_block_stop", index }),
  ];
}

/**
 * The event stream a Messages API body adds up to, laid out as the API streams it (see
 * fixtures/streams.ts for recorded ones): `message_start` with the message emptied and the input
 * usage, a `ping`, each block opened empty, filled by its deltas (text, thinking then its
 * signature, tool input as partial JSON; a redacted block arrives whole) and closed;
 * `message_delta` with the stop reason and the output usage; `message_stop`.
 */
export function messageEvents(payload: unknown, headers?: Readonly<Record<string, string>>): FakeStream {
  const body = payload as Body;
  const usage = body.usage ?? { input_tokens: 0, output_tokens: 0 };
  const events = [
    event({
      type: "message_start",
      message: {
        ...body,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        stop_details: null,
        usage: { ...usage, output_tokens: 1 },
      },
    }),
    event({ type: "ping" }),
    ...body.content.flatMap(blockEvents),
    event({
      type: "message_delta",
      delta: { stop_reason: body.stop_reason, stop_sequence: null, stop_details: body.stop_details ?? null },
      usage: {
        input_tokens: usage.input_tokens,
        cache_creation_input_tokens: usage.cache_creation_input_tokens ?? 0,
        cache_read_input_tokens: usage.cache_read_input_tokens ?? 0,
        output_tokens: usage.output_tokens,
      },
    }),
    event({ type: "message_stop" }),
  ];
  return { events, ...(headers === undefined ? {} : { headers }) };
}
