import { describe, expect, it } from "vitest";
import type { Principal } from "../data/index.js";
import { frontDoor } from "./front-door.js";

/** A door whose handler records every request that got through, with its principal. */
function door(options: Parameters<typeof frontDoor>[0] = {}) {
  const through: (Principal | undefined)[] = [];
  const handle = frontDoor(options, async (_request, principal) => {
    through.push(principal);
    return new Response("ran");
  });
  return { handle, through };
}

const post = (headers: Record<string, string>, url = "http://127.0.0.1:4478/api/chat") =>
  new Request(url, { method: "POST", headers: { "content-type": "text/plain", ...headers }, body: "{}" });

describe("the front door: nothing from another site", () => {
  it("refuses 403 a POST whose Origin is another site's, the no-preflight text/plain one included; the handler never runs", async () => {
    const { handle, through } = door();
    for (const origin of ["https://evil.example", "http://127.0.0.1:9999", "null"]) {
      const response = await handle(post({ origin, host: "127.0.0.1:4478" }));
      expect(response.status).toBe(403);
      expect(await response.text()).toMatch(/refused: name the origin in allowedOrigins/);
    }
    const noOrigin = await handle(post({ host: "127.0.0.1:4478", "sec-fetch-site": "cross-site" }));
    expect(noOrigin.status).toBe(403);
    expect(through).toEqual([]);
  });

  it("lets in a request with no Origin (a server, an SDK client) and one from the server's own origin", async () => {
    const { handle, through } = door();
    expect((await handle(post({ host: "127.0.0.1:4478" }))).status).toBe(200);
    expect((await handle(post({ host: "127.0.0.1:4478", origin: "http://127.0.0.1:4478" }))).status).toBe(200);
    expect((await handle(post({ host: "127.0.0.1:4478", "sec-fetch-site": "same-origin" }))).status).toBe(200);
    expect(through).toHaveLength(3);
  });

  it("refuses 403 a Host other than localhost, 127.0.0.1 or [::1] (DNS rebinding), even with a matching Origin", async () => {
    const { handle, through } = door();
    const rebound = await handle(post({ host: "evil.example:4478", origin: "http://evil.example:4478" }));
    expect(rebound.status).toBe(403);
    expect(await rebound.text()).toMatch(/does not answer to the host 'evil.example:4478'/);
    for (const host of ["localhost:3000", "127.0.0.1", "[::1]:8080", "LOCALHOST"]) {
      expect((await handle(post({ host }))).status).toBe(200);
    }
    expect(through).toHaveLength(4);
  });

  it("opens the hosts and origins named in allowedHosts and allowedOrigins, with CORS headers on the answer", async () => {
    const { handle } = door({ allowedHosts: ["agent.example.com"], allowedOrigins: ["https://app.example.com"] });
    const response = await handle(post({ host: "agent.example.com", origin: "https://app.example.com" }));
    expect(response.status).toBe(200);
    expect(response.headers.get("access-control-allow-origin")).toBe("https://app.example.com");
    expect(response.headers.get("access-control-allow-credentials")).toBe("true");
    expect(response.headers.get("vary")).toBe("Origin");
    expect((await handle(post({ host: "other.example.com" }))).status).toBe(403);
    expect((await handle(post({ host: "agent.example.com", origin: "https://evil.example" }))).status).toBe(403);
  });

  it("answers a CORS preflight for an allowed origin only", async () => {
    const { handle, through } = door({ allowedOrigins: ["https://app.example.com"] });
    const preflight = (origin: string) =>
      handle(
        new Request("http://localhost:4478/api/chat", {
          method: "OPTIONS",
          headers: {
            origin,
            "access-control-request-method": "POST",
            "access-control-request-headers": "content-type, authorization",
          },
        }),
      );
    const allowed = await preflight("https://app.example.com");
    expect(allowed.status).toBe(204);
    expect(allowed.headers.get("access-control-allow-origin")).toBe("https://app.example.com");
    expect(allowed.headers.get("access-control-allow-methods")).toContain("POST");
    expect(allowed.headers.get("access-control-allow-headers")).toBe("content-type, authorization");
    const refused = await preflight("https://evil.example");
    expect(refused.status).toBe(403);
    expect(refused.headers.get("access-control-allow-origin")).toBeNull();
    expect(through).toEqual([]);
  });
});

describe("the front door: who is asking", () => {
  it("hands the handler the principal authorize tells, and answers authorize's own refusal as it is", async () => {
    const { handle, through } = door({
      authorize: (request) => {
        const token = request.headers.get("authorization");
        if (token === "Bearer ana") return { tenant: "acme", user: "ana" };
        return new Response("who are you?", { status: 401, headers: { "www-authenticate": "Bearer" } });
      },
    });
    const refused = await handle(post({}));
    expect(refused.status).toBe(401);
    expect(refused.headers.get("www-authenticate")).toBe("Bearer");
    expect((await handle(post({ authorization: "Bearer ana" }))).status).toBe(200);
    expect(through).toEqual([{ tenant: "acme", user: "ana" }]);
  });

  it("fails closed when authorize returns no principal with a tenant: 500, and the handler never runs", async () => {
    for (const told of [{ tenant: "" }, {}, null, { tenant: 7 }]) {
      const { handle, through } = door({ authorize: () => told as Principal });
      const response = await handle(post({}));
      expect(response.status).toBe(500);
      expect(through).toEqual([]);
    }
  });

  it("without authorize, no request has a principal", async () => {
    const { handle, through } = door();
    await handle(post({}));
    expect(through).toEqual([undefined]);
  });
});
