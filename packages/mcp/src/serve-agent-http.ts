import { randomUUID } from "node:crypto";
import {
  createMcpHandler,
  isLegacyRequest,
  type McpServer,
  WebStandardStreamableHTTPServerTransport,
} from "@modelcontextprotocol/server";
import { serveAgent } from "./serve-agent.js";
import type { ServeOptions } from "./serve-options.js";

/** A web-standard MCP endpoint: `fetch` serves one HTTP request; `close` ends every session. */
export interface AgentHttpHandler {
  fetch(request: Request): Promise<Response>;
  close(): Promise<void>;
}

/**
 * `serveAgent` over Streamable HTTP, for clients of both protocol eras: 2026-07-28 requests go to
 * the SDK's per-request handler (`createMcpHandler`), and 2025-era clients get a session each
 * (`Mcp-Session-Id`), so the server can ask them for an approval while a call or a task's
 * `tasks/result` waits (their answers come back on the same session). A session ends with the
 * client's DELETE or with `close`; the runs stay in the store.
 */
export function serveAgentHttp(options: ServeOptions & { name: string; description: string }): AgentHttpHandler {
  const modern = createMcpHandler(() => serveAgent(options), { legacy: "reject" });
  const sessions = new Map<string, { transport: WebStandardStreamableHTTPServerTransport; server: McpServer }>();

  async function legacy(request: Request): Promise<Response> {
    const sessionId = request.headers.get("mcp-session-id");
    if (sessionId !== null) {
      const session = sessions.get(sessionId);
      if (session === undefined) return refusal(404, `Session not found: '${sessionId}'`);
      return session.transport.handleRequest(request);
    }
    if (request.method !== "POST") return refusal(400, "A request without Mcp-Session-Id must be a POST of initialize");
    const server = serveAgent(options);
    const transport: WebStandardStreamableHTTPServerTransport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        sessions.set(id, { transport, server });
      },
      onsessionclosed: (id) => {
        sessions.delete(id);
      },
    });
    await server.connect(transport);
    return transport.handleRequest(request);
  }

  return {
    fetch: async (request) => ((await isLegacyRequest(request)) ? legacy(request) : modern.fetch(request)),
    close: async () => {
      const open = [...sessions.values()];
      sessions.clear();
      await Promise.all(open.map(({ server }) => server.close()));
      await modern.close();
    },
  };
}

function refusal(status: number, message: string): Response {
  return Response.json({ jsonrpc: "2.0", id: null, error: { code: -32000, message } }, { status });
}
