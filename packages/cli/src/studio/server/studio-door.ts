import type { IncomingMessage } from "node:http";
import { frontDoor, type Principal } from "../../core-api.js";
import type { StudioContext } from "./studio-context.js";

/** What the served doors' checks made of a request: who it is from, or the answer that refuses it. */
export type DoorAnswer = { readonly principal: Principal | undefined } | { readonly refused: Response };

/** The methods a web `Request` can carry; the studio answers any other 405 after the checks. */
const WEB_METHODS: ReadonlySet<string> = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);

const refuseJson = (status: number, message: string) => Response.json({ error: message }, { status });

/**
 * Puts the checks every served door makes (core's `frontDoor`) in front of the studio's own: a
 * `Host` it does not answer to and a request from another site's page (`Origin`, or
 * `Sec-Fetch-Site: cross-site`) are refused 403 before anything is read, and `authorize`, when the
 * studio was given one, tells who is asking or refuses the request as it says. The studio answers
 * no preflight: its pages are its own origin's.
 */
export async function studioDoor(context: StudioContext, request: IncomingMessage): Promise<DoorAnswer> {
  let principal: Principal | undefined;
  let reached = false;
  const door = frontDoor(
    { allowedHosts: [...context.hosts], ...(context.authorize === undefined ? {} : { authorize: context.authorize }) },
    async (_request, who) => {
      reached = true;
      principal = who;
      return new Response(null, { status: 204 });
    },
    refuseJson,
  );
  const answer = await door(webRequestOf(request));
  return reached ? { principal } : { refused: answer };
}

/** The request as `authorize` reads it: its method, path and headers (the body stays with the studio). */
function webRequestOf(request: IncomingMessage): Request {
  const method = WEB_METHODS.has(request.method ?? "") ? (request.method as string) : "GET";
  let url: URL;
  try {
    url = new URL(request.url ?? "/", "http://127.0.0.1");
  } catch {
    url = new URL("http://127.0.0.1/");
  }
  return new Request(url, { method, headers: headersOf(request) });
}

function headersOf(request: IncomingMessage): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    if (typeof value === "string") headers.set(name, value);
    else if (Array.isArray(value)) headers.set(name, value.join(", "));
  }
  return headers;
}
