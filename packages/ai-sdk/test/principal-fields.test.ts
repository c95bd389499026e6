import { chatHandler } from "@agentloop/ai-sdk";
import { MemoryEventStore, type Principal, ToolRegistry } from "@agentloop/core";
import { final } from "@agentloop/core/testing";
import { afterEach, describe, expect, it } from "vitest";
import { listen } from "./chat-server.js";

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

describe("a principal with fields beyond { tenant, user }", () => {
  it("logs its run's owner as { tenant, user } only: a session's token is not kept in the log", async () => {
    const store = new MemoryEventStore();
    const authorize = () => ({ tenant: "acme", user: "ana", accessToken: "sk-live-secret" }) as Principal;
    const server = await listen(
      chatHandler({ model: () => final("Done."), registry: new ToolRegistry(), store, authorize }),
    );
    closers.push(server.close);
    const response = await fetch(server.url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        id: "c1",
        messages: [{ id: "u1", role: "user", parts: [{ type: "text", text: "Hi." }] }],
      }),
    });
    await response.text();
    const [started] = await store.read("c1");
    expect(JSON.stringify(started)).not.toContain("sk-live-secret");
  });
});
