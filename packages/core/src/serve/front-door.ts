import { isPrincipal, type Principal } from "../data/index.js";
import { checkServedMemory, checkTenantBudget, type ServeOptions } from "./serve-options.js";

/** A refusal in a door's own shape (plain text, JSON, JSON-RPC): the status and why. */
export type Refuse = (status: number, message: string) => Response;

/** The names a loopback server answers to, at any port: a page that rebinds its own name to 127.0.0.1 names another. */
const LOOPBACK_HOSTS: readonly string[] = ["localhost", "127.0.0.1", "[::1]"];
/** The methods and headers a page from an allowed origin may use, as a preflight answers them. */
const CORS_METHODS = "GET, POST, DELETE, OPTIONS";
const CORS_EXPOSED = "mcp-session-id, mcp-protocol-version, x-vercel-ai-ui-message-stream";

const plainText: Refuse = (status, message) =>
  new Response(message, { status, headers: { "content-type": "text/plain; charset=utf-8" } });

/**
 * Puts the checks every request passes before any protocol reads it in front of `handle`, once for
 * every door: a `Host` the server does not answer to is refused 403 (DNS rebinding), a request
 * from another site's page (`Origin`, or `Sec-Fetch-Site: cross-site` without one) is refused 403
 * unless `allowedOrigins` names it, a CORS preflight is answered for an allowed origin only, and
 * `authorize` tells who is asking (its refusal is answered as it is). A request with neither
 * `Origin` nor `Sec-Fetch-Site` (a server, a CLI, an SDK client in Node) is no other site's.
 * `handle` gets the principal (`undefined` without `authorize`); an allowed cross-origin answer
 * carries the CORS headers. A `tenantBudget` whose runs could not be priced, and memory whose scope
 * tenants would share, are refused here, when the door is made (`checkTenantBudget`, `checkServedMemory`).
 */
export function frontDoor(
  serve: Pick<ServeOptions, "authorize" | "allowedOrigins" | "allowedHosts"> &
    Partial<Pick<ServeOptions, "tenantBudget" | "options" | "model" | "memoryScope" | "registry">>,
  handle: (request: Request, principal: Principal | undefined) => Promise<Response>,
  refuse: Refuse = plainText,
): (request: Request) => Promise<Response> {
  checkTenantBudget(serve);
  checkServedMemory(serve);
  const hosts = new Set([...LOOPBACK_HOSTS, ...(serve.allowedHosts ?? [])].map((host) => host.toLowerCase()));
  const origins = new Set((serve.allowedOrigins ?? []).map(normalOrigin));
  return async (request) => {
    const host = request.headers.get("host") ?? new URL(request.url).host;
    if (!answersTo(hosts, host)) {
      return refuse(403, `this server does not answer to the host '${host.slice(0, 100)}': name it in allowedHosts`);
    }
    const origin = request.headers.get("origin");
    const own = origin === null ? true : normalOrigin(origin) === `${new URL(request.url).protocol}//${host}`;
    const named = origin !== null && (origins.has("*") || origins.has(normalOrigin(origin)));
    const foreign = origin === null ? request.headers.get("sec-fetch-site") === "cross-site" : !own && !named;
    if (foreign) {
      const from = origin ?? "another site";
      return refuse(403, `requests from ${from.slice(0, 100)} are refused: name the origin in allowedOrigins`);
    }
    const cors = named && !own && origin !== null ? corsHeaders(origin, origins.has("*")) : null;
    if (request.method === "OPTIONS" && request.headers.has("access-control-request-method")) {
      if (cors === null) return refuse(403, "a preflight is answered for an origin named in allowedOrigins only");
      const allowed = request.headers.get("access-control-request-headers") ?? "content-type, authorization";
      cors.set("access-control-allow-methods", CORS_METHODS);
      cors.set("access-control-allow-headers", allowed);
      cors.set("access-control-max-age", "600");
      return new Response(null, { status: 204, headers: cors });
    }
    const principal = await who(serve, request);
    const response = principal instanceof Response ? principal : await handle(request, principal);
    return cors === null ? response : withHeaders(response, cors);
  };
}

/** The principal `authorize` tells, its refusal, or a 500 when it returns neither (no request goes on without one). */
async function who(
  serve: Pick<ServeOptions, "authorize">,
  request: Request,
): Promise<Principal | Response | undefined> {
  if (serve.authorize === undefined) return undefined;
  const told = await serve.authorize(request);
  if (told instanceof Response) return told;
  // Only { tenant, user }: a run's log keeps its owner for good, and what else authorize knew (a token, a profile) is not the log's.
  if (isPrincipal(told))
    return told.user === undefined ? { tenant: told.tenant } : { tenant: told.tenant, user: told.user };
  return plainText(500, "authorize returned neither a principal { tenant, user? } with a tenant nor a Response");
}

function answersTo(hosts: ReadonlySet<string>, host: string): boolean {
  const lower = host.toLowerCase();
  if (hosts.has(lower)) return true;
  let name: string;
  try {
    name = new URL(`http://${lower}`).hostname;
  } catch {
    return false;
  }
  return hosts.has(name);
}

function normalOrigin(origin: string): string {
  return origin.toLowerCase().replace(/\/+$/, "");
}

function corsHeaders(origin: string, any: boolean): Headers {
  const headers = new Headers({
    "access-control-allow-origin": origin,
    "access-control-expose-headers": CORS_EXPOSED,
    vary: "Origin",
  });
  // Credentials (a session cookie) go only to origins named one by one.
  if (!any) headers.set("access-control-allow-credentials", "true");
  return headers;
}

function withHeaders(response: Response, extra: Headers): Response {
  const headers = new Headers(response.headers);
  for (const [name, value] of extra) headers.set(name, value);
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
}
