import type { IncomingMessage, ServerResponse } from "node:http";
import type { Plugin } from "vite";

/** A Vite plugin that answers `/api/chat` (and `/api/chat/<id>/stream`) with a web-standard handler, next to the page. */
export function chatApi(handler: (request: Request) => Promise<Response>): Plugin {
  return {
    name: "agentloop-chat-api",
    configureServer(server) {
      server.middlewares.use("/api/chat", (req, res) => void answer(handler, req, res));
    },
  };
}

async function answer(handler: (request: Request) => Promise<Response>, req: IncomingMessage, res: ServerResponse) {
  const parts: Buffer[] = [];
  for await (const part of req) parts.push(part as Buffer);
  const leaving = new AbortController();
  res.on("close", () => leaving.abort());
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) if (typeof value === "string") headers.set(name, value);
  const method = req.method ?? "GET";
  // Mounted under /api/chat, `req.url` is the rest of the path.
  const request = new Request(`http://127.0.0.1/api/chat${req.url === "/" ? "" : (req.url ?? "")}`, {
    method,
    headers,
    signal: leaving.signal,
    ...(method === "POST" ? { body: Buffer.concat(parts) } : {}),
  });
  const response = await handler(request);
  res.writeHead(response.status, Object.fromEntries(response.headers));
  if (response.body === null) return void res.end();
  const reader = response.body.getReader();
  res.on("close", () => void reader.cancel().catch(() => {}));
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    res.write(value);
  }
  res.end();
}
