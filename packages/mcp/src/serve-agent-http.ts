import { randomUUID } from "node:crypto";
import type { Principal } from "@agentloop/core";
import { frontDoor, mayUse, type ServeOptions } from "@agentloop/core/serve";
import {
  type AuthInfo,
  createMcpHandler,
  isLegacyRequest,
  type McpServer,
  WebStandardStreamableHTTPServerTransport,
} from "@modelcontextprotocol/server";
import { agentServer } from "./serve-agent.js";

/** A web-standard MCP endpoint: `fetch` serves one HTTP request; `close` ends every session. */
export interface AgentHttpHandler {
  fetch(request: Request): Promise<Response>;
  close(): Promise<void>;
}

/** Where the principal of a request rides to the SDK's per-request server factory. */
const PRINCIPAL = "agentloop/principal";

/**
 * `serveAgent` over Streamable HTTP, for clients of both protocol eras: 2026-07-28 requests go to
 * the SDK's per-request handler (`createMcpHandler`), and 2025-era clients get a session each
 * (`Mcp-Session-Id`), so the server can ask them for an approval while a call or a task's
 * `tasks/result` waits (their answers come back on the same session). A session ends with the
 * client's DELETE or with `close`; the runs stay in the store. Every request first passes the
 * serving core's front door (`Host`, `Origin`, CORS, `authorize`): a session is its principal's,
 * and another tenant's request on it is answered as one on an unknown session (404); each sees
 * its own runs and tasks only.
 */
export function serveAgentHttp(options: ServeOptions & { name: string; description: string }): AgentHttpHandler {
  const modern = createMcpHandler((ctx) => agentServer(options, principalOf(ctx.authInfo)), { legacy: "reject" });
  const sessions = new Map<
    string,
    { transport: WebStandardStreamableHTTPServerTransport; server: McpServer; principal: Principal | undefined }
  >();

  async function legacy(request: Request, principal: Principal | undefined): Promise<Response> {
    const sessionId = request.headers.get("mcp-session-id");
    if (sessionId !== null) {
      const session = sessions.get(sessionId);
      if (session === undefined || !mayUse(principal, session.principal)) {
        return refusal(404, `Session not found: '${sessionId}'`);
      }
      return session.transport.handleRequest(request);
    }
    if (request.method !== "POST") return refusal(400, "A request without Mcp-Session-Id must be a POST of initialize");
    const server = agentServer(options, principal);
    const transport: WebStandardStreamableHTTPServerTransport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        sessions.set(id, { transport, server, principal });
      },
      onsessionclosed: (id) => {
        sessions.delete(id);
      },
    });
    await server.connect(transport);
    return transport.handleRequest(request);
  }

  const door = frontDoor(
    options,
    async (request, principal) => {
      if (await isLegacyRequest(request)) return legacy(request, principal);
      return modern.fetch(request, principal === undefined ? {} : { authInfo: authInfoOf(principal) });
    },
    refusal,
  );
  return {
    fetch: door,
    close: async () => {
      const open = [...sessions.values()];
      sessions.clear();
      await Promise.all(open.map(({ server }) => server.close()));
      await modern.close();
    },
  };
}

function authInfoOf(principal: Principal): AuthInfo {
  return { token: "", clientId: principal.tenant, scopes: [], extra: { [PRINCIPAL]: principal } };
}

function principalOf(authInfo: AuthInfo | undefined): Principal | undefined {
  return authInfo?.extra?.[PRINCIPAL] as Principal | undefined;
}

function refusal(status: number, message: string): Response {
  return Response.json({ jsonrpc: "2.0", id: null, error: { code: -32000, message } }, { status });
}
