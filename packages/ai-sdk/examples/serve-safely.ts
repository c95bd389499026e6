import assert from "node:assert/strict";
import { chatHandler } from "@agentloop/ai-sdk";
import { MemoryEventStore, type Model, ModelError, type Principal, ToolRegistry } from "@agentloop/core";
import { final } from "@agentloop/core/testing";

// Who is asking: a bearer token (an API client) or a session cookie (a signed-in page), each
// looked up in what your app already keeps. Anything else is refused before the agent is reached.
const tokens = new Map<string, Principal>([["token-of-ana", { tenant: "acme", user: "ana" }]]);
const sessions = new Map<string, Principal>([["session-of-bo", { tenant: "globex", user: "bo" }]]);
function authorize(request: Request): Principal | Response {
  const bearer = /^Bearer (.+)$/.exec(request.headers.get("authorization") ?? "")?.[1];
  const cookie = /(?:^|;\s*)sid=([^;]+)/.exec(request.headers.get("cookie") ?? "")?.[1];
  const principal = (bearer && tokens.get(bearer)) || (cookie && sessions.get(cookie));
  return principal || new Response("sign in first", { status: 401, headers: { "www-authenticate": "Bearer" } });
}

const errors: unknown[] = [];
const model: Model = (messages) => {
  if (JSON.stringify(messages).includes("fail"))
    throw new ModelError("401 invalid x-api-key sk-…", { messages, step: 1 });
  return final("Hello.");
};
const handle = chatHandler({
  model,
  registry: new ToolRegistry(),
  store: new MemoryEventStore(),
  authorize,
  // The one page of another origin that may call this API; every other site's request is refused 403.
  allowedOrigins: ["https://app.example.com"],
  // The detail of a failure goes here (and stays in the run's log); the page sees "the agent failed (<chat id>)".
  onError: (error) => errors.push(error),
});

const post = (chat: string, text: string, headers: Record<string, string>) =>
  handle(
    new Request("http://localhost/api/chat", {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body: JSON.stringify({ id: chat, messages: [{ id: "u1", role: "user", parts: [{ type: "text", text }] }] }),
    }),
  );

// Ana's first message starts her chat: the run logs { tenant: "acme", user: "ana" } as its owner.
assert.equal((await post("chat-1", "Hi.", { authorization: "Bearer token-of-ana" })).status, 200);
// No credentials: 401. Another site's page: 403, even a no-preflight text/plain POST.
assert.equal((await post("chat-1", "Hi.", {})).status, 401);
assert.equal(
  (await post("chat-2", "Hi.", { origin: "https://evil.example", cookie: "sid=session-of-bo" })).status,
  403,
);
// Bo, of another tenant, cannot read Ana's chat: it is answered as a chat that does not exist.
const read = await handle(
  new Request("http://localhost/api/chat/chat-1/messages", { headers: { cookie: "sid=session-of-bo" } }),
);
assert.equal(await read.text(), "[]");
// A failure is masked: the provider's words go to onError only.
const failed = await (await post("chat-3", "Please fail.", { cookie: "sid=session-of-bo" })).text();
assert.match(failed, /"errorText":"the agent failed \(chat-3\)"/);
assert.match(String(errors[0]), /invalid x-api-key/);
console.log("served safely");
