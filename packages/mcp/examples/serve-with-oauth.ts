import assert from "node:assert/strict";
import { MemoryEventStore, type Principal, ToolRegistry } from "@agentloop/core";
import { final, scriptedModel } from "@agentloop/core/testing";
import { serveAgentHttp } from "@agentloop/mcp";
import { bearerAuthChallengeResponse, type OAuthTokenVerifier, verifyBearerToken } from "@modelcontextprotocol/server";

// An MCP server as an OAuth resource server: the MCP SDK's bearer-token helpers check the token
// (here a verifier of your authorization server's tokens; in production it introspects or checks a JWT),
// and the token's claims name the principal: its tenant, and the user it was issued to.
const verifier: OAuthTokenVerifier = {
  async verifyAccessToken(token) {
    if (token !== "token-of-ana") throw new Error("unknown token");
    const expiresAt = Math.floor(Date.now() / 1000) + 3600;
    return { token, clientId: "chat-app", scopes: ["agent"], expiresAt, extra: { tenant: "acme", sub: "ana" } };
  },
};
const options = { verifier, requiredScopes: ["agent"] };
async function authorize(request: Request): Promise<Principal | Response> {
  try {
    const info = await verifyBearerToken(request.headers.get("authorization"), options);
    return { tenant: String(info.extra?.tenant), user: String(info.extra?.sub) };
  } catch (error) {
    // 401 with the WWW-Authenticate challenge an MCP client follows to sign in.
    return bearerAuthChallengeResponse(error, options);
  }
}

const agent = serveAgentHttp({
  name: "agent",
  description: "An agent.",
  model: scriptedModel([final("Hello.")]),
  registry: new ToolRegistry(),
  store: new MemoryEventStore(),
  authorize,
});
const initialize = (authorization?: string) =>
  agent.fetch(
    new Request("http://127.0.0.1/mcp", {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        ...(authorization ? { authorization } : {}),
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "example", version: "1.0.0" } },
      }),
    }),
  );
const refused = await initialize();
assert.equal(refused.status, 401);
assert.match(refused.headers.get("www-authenticate") ?? "", /^Bearer/);
const signedIn = await initialize("Bearer token-of-ana");
assert.equal(signedIn.status, 200);
await agent.close();
console.log("signed in as ana of acme");
