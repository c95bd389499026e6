import { appendFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chatHandler } from "@agentloop/ai-sdk";
import { type Principal, ToolRegistry } from "@agentloop/core";
import { JsonlEventStore } from "@agentloop/core/jsonl-store";
import { final } from "@agentloop/core/testing";
import { afterEach, describe, expect, it } from "vitest";
import { listen } from "./chat-server.js";

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

const TOKENS: Readonly<Record<string, Principal>> = { a: { tenant: "acme" }, g: { tenant: "globex" } };
const authorize = (request: Request): Principal | Response =>
  TOKENS[(request.headers.get("authorization") ?? "").replace(/^Bearer /, "")] ?? new Response("no", { status: 401 });

describe("a chat whose log has a torn last line (a crash mid-append)", () => {
  it("is answered to another tenant as an unknown chat, and tells no client the store's file path", async () => {
    const dir = mkdtempSync(join(tmpdir(), "agentloop-secret-home-"));
    closers.push(async () => rmSync(dir, { recursive: true, force: true }));
    const store = new JsonlEventStore(dir);
    const server = await listen(
      chatHandler({ model: () => final("Done."), registry: new ToolRegistry(), store, authorize }),
    );
    closers.push(server.close);
    const post = (id: string, token: string) =>
      fetch(server.url, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
        body: JSON.stringify({ id, messages: [{ id: "u1", role: "user", parts: [{ type: "text", text: "Hi." }] }] }),
      });
    const get = (id: string, token: string) =>
      fetch(`${server.url}/${id}/messages`, { headers: { authorization: `Bearer ${token}` } });
    expect((await (await post("c1", "a")).text()).length).toBeGreaterThan(0);
    appendFileSync(join(dir, "c1.jsonl"), '{"type":"user.mess'); // a torn last line

    // Another tenant: as an unknown chat.
    const unknown = await get("nobody", "g");
    const other = await get("c1", "g");
    const otherText = await other.text();
    expect([other.status, otherText]).toEqual([unknown.status, await unknown.text()]);
    const otherPost = await post("c1", "g");
    expect(await otherPost.text()).not.toContain(dir);

    // The owner: refused or failed, but never told where the server keeps its files.
    const own = await get("c1", "a");
    expect(await own.text()).not.toContain(dir);
    const ownPost = await post("c1", "a");
    expect(await ownPost.text()).not.toContain(dir);
  });
});
