import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { Readable } from "node:stream";

/**
 * Serves a web-standard handler (`serveAgentHttp(...).fetch`, `createMcpHandler(...).fetch`) over
 * `node:http` on 127.0.0.1 and a free port: each request is handed on as it came (method, headers,
 * body), each answer streamed back. `url` is the MCP endpoint; `close` ends the server.
 */
export async function listenMcp(
  fetch: (request: Request) => Promise<Response>,
): Promise<{ readonly url: URL; close(): Promise<void> }> {
  const http = createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const headers = new Headers();
    for (const [key, value] of Object.entries(request.headers)) if (typeof value === "string") headers.set(key, value);
    const body = chunks.length === 0 ? undefined : Buffer.concat(chunks);
    const answer = await fetch(
      new Request(`http://127.0.0.1${request.url}`, { method: request.method, headers, body }),
    );
    response.writeHead(answer.status, Object.fromEntries(answer.headers));
    if (answer.body === null) response.end();
    else
      Readable.fromWeb(answer.body as never)
        .on("error", () => response.destroy())
        .pipe(response);
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  return {
    url: new URL(`http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`),
    close: () =>
      new Promise<void>((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  };
}
