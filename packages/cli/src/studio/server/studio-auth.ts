import { timingSafeEqual } from "node:crypto";
import type { IncomingMessage } from "node:http";

/** The cookie that carries the token after the first visit of the printed URL. */
export const TOKEN_COOKIE = "agentloop_studio";
/** The header that carries the token on every request that changes something. */
export const TOKEN_HEADER = "x-agentloop-token";

/** Whether two tokens are the same, in time that does not depend on where they differ. */
export function sameToken(given: string | undefined, token: string): boolean {
  if (given === undefined) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The token of a page request: from `?token=` (the printed URL) or from the cookie it set. */
export function readToken(request: IncomingMessage, url: URL): string | undefined {
  const query = url.searchParams.get("token");
  if (query !== null) return query;
  const cookies = request.headers.cookie ?? "";
  for (const part of cookies.split(";")) {
    const [name, ...value] = part.trim().split("=");
    if (name === TOKEN_COOKIE) return value.join("=");
  }
  return undefined;
}

/**
 * Whether a request may be answered: reads need the token (the URL's or the cookie's); a request
 * that changes something needs it in `x-agentloop-token`, which a page of another site cannot
 * send, so a cookie alone never changes anything. The `Host` must be the one the studio serves,
 * so that a name rebound to 127.0.0.1 by another site gets nothing.
 */
export function allowed(request: IncomingMessage, url: URL, token: string, hosts: ReadonlySet<string>): boolean {
  if (!hosts.has(request.headers.host ?? "")) return false;
  if (request.method === "GET" || request.method === "HEAD") return sameToken(readToken(request, url), token);
  const header = request.headers[TOKEN_HEADER];
  return sameToken(typeof header === "string" ? header : undefined, token);
}
