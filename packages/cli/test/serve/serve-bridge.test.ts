import { appendFileSync, writeFileSync } from "node:fs";
import { type ClientRequest, request as httpRequest } from "node:http";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir } from "../cli.js";
import { scriptedServe, serve } from "../serving.js";

function files() {
  const at = tempDir();
  const script = join(at, "script.json");
  writeFileSync(script, JSON.stringify([{ content: "Hello.", toolCalls: [] }]));
  const authorize = join(at, "throwing-authorize.mjs");
  writeFileSync(
    authorize,
    `export default function authorize(request) {
      if (request.headers.get("authorization") === "Bearer ok") return { tenant: "acme" };
      throw new Error("connect to postgres://admin:s3cret@10.0.0.5/users failed");
    }`,
  );
  return { at, store: join(at, "runs"), script, authorize };
}

const base = (f: ReturnType<typeof files>) => scriptedServe("--ui-stream", f.script, f.store);

/**
 * The status a POST to `path` is answered with while `send` writes its body (never ended), or what
 * happened instead within `waitMs`: the request is dropped once answered.
 */
function statusOf(
  url: URL,
  path: string,
  headers: Record<string, string>,
  send: (req: ClientRequest) => void,
  waitMs: number,
): Promise<number | string> {
  return new Promise((resolve) => {
    const req = httpRequest({ host: "127.0.0.1", port: url.port, path, method: "POST", headers });
    req.on("response", (response) => {
      resolve(response.statusCode ?? 0);
      response.resume();
      req.destroy();
    });
    req.on("error", () => {});
    send(req);
    setTimeout(() => {
      resolve(`no answer within ${waitMs / 1000}s`);
      req.destroy();
    }, waitMs);
  });
}

describe("agentloop serve: what the HTTP bridge tells a client", () => {
  it("an authorize that throws is a 500 that tells the client nothing of the error", async () => {
    const f = files();
    const url = await serve([...base(f), "--authorize", f.authorize]);
    const response = await fetch(new URL("/api/chat/x/messages", url));
    expect(response.status).toBe(500);
    expect(await response.text()).not.toContain("s3cret");
  });

  it("a chat whose log is torn tells the client nothing of the store's files", async () => {
    const f = files();
    const url = await serve(base(f));
    const post = await fetch(new URL("/api/chat", url), {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        id: "c1",
        messages: [{ id: "u1", role: "user", parts: [{ type: "text", text: "Hi." }] }],
      }),
    });
    await post.text();
    appendFileSync(join(f.store, "c1.jsonl"), '{"type":"user.mess');
    const response = await fetch(new URL("/api/chat/c1/messages", url));
    expect(await response.text()).not.toContain(f.store);
  });

  it("a request from a foreign Host is refused before its (endless) body is read", async () => {
    const f = files();
    const url = new URL(await serve(base(f)));
    // The body never ends: a server that reads it whole first never answers.
    const status = await statusOf(
      url,
      "/api/chat",
      { host: "evil.example", "content-type": "application/json", "transfer-encoding": "chunked" },
      (req) => req.write(Buffer.alloc(1024 * 1024, 32)),
      3000,
    );
    expect(status).toBe(403);
  });
});

describe("agentloop serve: a body past the limit", () => {
  it("is refused 413, and the server goes on answering", async () => {
    const at = tempDir();
    const script = join(at, "script.json");
    writeFileSync(script, JSON.stringify([{ content: "Hello.", toolCalls: [] }]));
    const url = await serve(scriptedServe("--ag-ui", script, join(at, "runs")));
    // A body that says it is 40 MiB is refused at once, from its length, before a byte more is read
    // (a client still sending it would see the connection close: only a few bytes are sent here).
    const at413 = new URL(url);
    const declared = await statusOf(
      at413,
      at413.pathname,
      { "content-type": "application/json", "content-length": String(40 * 1024 * 1024) },
      (req) => req.write('{"threadId":"t","x":"'),
      3000,
    );
    expect(declared).toBe(413);
    // A chunked body with no length is counted as it comes, and refused past the limit.
    const piece = Buffer.alloc(1024 * 1024, 97);
    const counted = await statusOf(
      at413,
      at413.pathname,
      { "content-type": "application/json", "transfer-encoding": "chunked" },
      (req) => {
        let sent = 0;
        const more = () => {
          while (sent < 40 && req.write(piece)) sent++;
          if (sent < 40) req.once("drain", more);
        };
        more();
      },
      10_000,
    );
    expect(counted).toBe(413);
    const ok = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        threadId: "t1",
        runId: "r1",
        messages: [{ id: "u1", role: "user", content: "Hi." }],
        tools: [],
        context: [],
      }),
    });
    expect(ok.status).toBe(200);
    await ok.text();
  });
});
