import type OpenAI from "openai";

type Fetch = typeof fetch;

/**
 * A copy of `client` (`withOptions`, the SDK's own way to derive a client) whose fetch marks an
 * `insufficient_quota` 429 with `x-should-retry: false`, the header the SDK obeys before its own
 * retry rules: an empty balance does not refill in a few seconds, so retrying it only delays the
 * error. Every other answer, other 429s included, passes through untouched and is retried as usual.
 * The client's own fetch (a custom one, if it was given) still makes every request.
 */
export function withoutQuotaRetries(client: OpenAI): OpenAI {
  const own = (client as unknown as { fetch?: unknown }).fetch;
  const inner: Fetch = typeof own === "function" ? (own as Fetch) : fetch;
  const quotaAware: Fetch = async (input, init) => {
    const response = await inner(input, init);
    if (response.status !== 429 || !isQuotaError(await response.clone().text())) return response;
    const headers = new Headers(response.headers);
    headers.set("x-should-retry", "false");
    return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
  };
  return client.withOptions({ fetch: quotaAware });
}

function isQuotaError(body: string): boolean {
  try {
    const { error } = JSON.parse(body) as { error?: { code?: unknown; type?: unknown } };
    return error?.code === "insufficient_quota" || error?.type === "insufficient_quota";
  } catch {
    return false;
  }
}
