/**
 * A `fetch` for a provider package's `fetch` option that answers from a queue of the provider's
 * own reply bodies, as JSON or, when the package asks for a stream, as the provider's event stream
 * built from `events`; it keeps every request's URL and body. Nothing leaves the process.
 */
export interface ProviderReply {
  /** The non-streaming body. */
  readonly json?: unknown;
  /** The streamed body: each item one server-sent `data:` event (or raw bytes for binary streams). */
  readonly events?: readonly unknown[];
  /** A failure to answer with instead (status, headers and body). */
  readonly status?: number;
  readonly headers?: Readonly<Record<string, string>>;
}

export interface RecordedCall {
  readonly url: string;
  readonly body: Record<string, unknown>;
  readonly text: string;
}

export interface ProviderFetch {
  readonly fetch: typeof globalThis.fetch;
  readonly calls: RecordedCall[];
}

/** `isStream` tells from the request whether the package asked for a stream. */
export function providerFetch(
  replies: readonly ProviderReply[],
  isStream: (url: string, body: Record<string, unknown>) => boolean,
  encodeStream: (events: readonly unknown[]) => Uint8Array<ArrayBuffer> | string = sse,
): ProviderFetch {
  const queue = [...replies];
  const calls: RecordedCall[] = [];
  const fetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const url = input instanceof Request ? input.url : String(input);
    const text = typeof init?.body === "string" ? init.body : init?.body === undefined ? "" : String(init.body);
    const body = text === "" ? {} : (JSON.parse(text) as Record<string, unknown>);
    calls.push({ url, body, text });
    init?.signal?.throwIfAborted();
    const reply = queue.shift();
    if (reply === undefined) return new Response(JSON.stringify({ error: "no more replies" }), { status: 500 });
    if (reply.status !== undefined) {
      return new Response(JSON.stringify(reply.json ?? { error: { message: "failed" } }), {
        status: reply.status,
        headers: { "content-type": "application/json", ...reply.headers },
      });
    }
    if (isStream(url, body)) {
      const events = reply.events ?? [];
      const encoded = encodeStream(events);
      return new Response(encoded, { status: 200, headers: { "content-type": "text/event-stream" } });
    }
    return new Response(JSON.stringify(reply.json), { status: 200, headers: { "content-type": "application/json" } });
  };
  return { fetch: fetch as typeof globalThis.fetch, calls };
}

/** Server-sent events, one `data:` line per event, as most providers stream. */
export function sse(events: readonly unknown[]): string {
  return events.map((event) => `data: ${typeof event === "string" ? event : JSON.stringify(event)}\n\n`).join("");
}
