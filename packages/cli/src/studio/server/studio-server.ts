import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { messageOf } from "../../cli-error.js";
import type { ReportData } from "../../html/report-data.js";
import { PageCache } from "./page-cache.js";
import { ActionError } from "./studio-actions.js";
import { allowed, readToken, sameToken, TOKEN_COOKIE } from "./studio-auth.js";
import type { StudioContext } from "./studio-context.js";
import { sendJson } from "./studio-context.js";
import { studioDoor } from "./studio-door.js";
import { postAction } from "./studio-posts.js";
import { GET_ROUTES, type Request } from "./studio-routes.js";

/** The studio's HTTP server (`node:http`): pages, the runs as JSON, server-sent events, and the actions. */
export function createStudioServer(context: StudioContext): Server {
  const caches = { pages: new PageCache(), views: new PageCache<ReportData>() };
  return createServer((request, response) => {
    handle(context, caches, request, response).catch((error: unknown) => {
      const status = error instanceof ActionError ? error.status : 500;
      if (!response.headersSent) sendJson(response, status, { error: messageOf(error) });
      else response.end();
    });
  });
}

async function handle(
  context: StudioContext,
  caches: Pick<Request, "pages" | "views">,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<void> {
  const url = new URL(request.url ?? "/", "http://studio.invalid");
  // The served doors' checks first (Host, Origin, who is asking), then the studio's token.
  const door = await studioDoor(context, request);
  if ("refused" in door) return sendRefusal(response, door.refused);
  if (!allowed(request, url, context.token, context.hosts)) {
    sendJson(response, 403, { error: "open the studio with the URL it printed at start (it holds the token)" });
    return;
  }
  const { principal } = door;
  if (request.method === "POST") return postAction(context, request, response, url.pathname, principal);
  if (request.method !== "GET") return sendJson(response, 405, { error: `${request.method} is not served` });
  if (sameToken(url.searchParams.get("token") ?? undefined, context.token)) {
    // The printed URL: keep the token in a cookie the browser sends only to this origin, and drop it from the address.
    const cookie = `${TOKEN_COOKIE}=${readToken(request, url)}; HttpOnly; SameSite=Strict; Path=/`;
    url.searchParams.delete("token");
    response.writeHead(303, { location: `${url.pathname}${url.search}`, "set-cookie": cookie });
    response.end();
    return;
  }
  const segments = url.pathname.split("/").slice(1);
  for (const route of GET_ROUTES) {
    const params = matchOf(route.path, segments);
    if (params === null) continue;
    const got: Request = { context, ...caches, request, response, url, params, principal };
    return route.serve(got);
  }
  sendJson(response, 404, { error: `nothing at ${url.pathname}` });
}

/** Sends a refusal of the doors' checks (or `authorize`'s own response) as it is. */
async function sendRefusal(response: ServerResponse, refused: Response): Promise<void> {
  const headers: Record<string, string> = { "cache-control": "no-store" };
  for (const [name, value] of refused.headers) headers[name] = value;
  response.writeHead(refused.status, headers);
  response.end(Buffer.from(await refused.arrayBuffer()));
}

/** The route's parameters (`:name` segments, decoded) when `segments` fit its path, else `null`. */
function matchOf(path: string, segments: readonly string[]): Record<string, string> | null {
  const parts = path.split("/").slice(1);
  if (parts.length !== segments.length) return null;
  const params: Record<string, string> = {};
  for (let index = 0; index < parts.length; index++) {
    const part = parts[index] ?? "";
    const segment = segments[index] ?? "";
    if (part.startsWith(":")) {
      if (segment === "") return null;
      try {
        params[part.slice(1)] = decodeURIComponent(segment);
      } catch {
        throw new ActionError(400, `'${segment.slice(0, 200)}' is not a well-formed path segment`);
      }
    } else if (part !== segment) return null;
  }
  return params;
}
