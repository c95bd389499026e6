import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chatHandler } from "@agentloop/ai-sdk";
import { type Model, type ModelReply, type Principal, ToolRegistry } from "@agentloop/core";
import { JsonlEventStore } from "@agentloop/core/jsonl-store";
import { final } from "@agentloop/core/testing";
import { afterEach, describe, expect, it } from "vitest";
import { listen } from "./chat-server.js";

// A ceiling per tenant across runs: two servers on one store folder, many chats of one tenant at
// once; the tenant's spending never passes its day's ceiling, a chat refused says which ceiling,
// and another tenant is not held to the first one's spending.

const closers: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

const authorize = (request: Request): Principal | Response => {
  const tenant = request.headers.get("x-tenant");
  return tenant === null ? new Response("who are you?", { status: 401 }) : { tenant };
};

/** Each reply bills 1,000 prompt and 100 reply tokens: $0.0028 at $2 / $8 per 1M; the hold reserves 500 reply tokens. */
const model: Model = Object.assign(
  async (): Promise<ModelReply> => {
    await new Promise((resolve) => setTimeout(resolve, 5));
    return { ...final("Done."), usage: { inputTokens: 1_000, outputTokens: 100 } };
  },
  { maxReplyTokens: 500 },
);

async function twoServers(costPerDay: number) {
  const directory = mkdtempSync(join(tmpdir(), "agentloop-tenant-budget-"));
  const servers: { url: string }[] = [];
  for (let index = 0; index < 2; index++) {
    const store = new JsonlEventStore(directory);
    const server = await listen(
      chatHandler({
        model,
        registry: new ToolRegistry(),
        store,
        authorize,
        options: { pricing: { default: { input: 2, output: 8 } } },
        tenantBudget: (principal) => (principal.tenant === "acme" ? { costPerDay } : undefined),
      }),
    );
    closers.push(() => server.close());
    servers.push(server);
  }
  closers.push(() => rmSync(directory, { recursive: true, force: true }));
  const chat = (server: number, id: string, tenant: string) =>
    fetch((servers[server] as { url: string }).url, {
      method: "POST",
      headers: { "content-type": "application/json", "x-tenant": tenant },
      body: JSON.stringify({ id, messages: [{ id: `u-${id}`, role: "user", parts: [{ type: "text", text: "Hi." }] }] }),
    }).then((response) => response.text());
  return { directory, chat };
}

describe("tenantBudget: a ceiling per tenant across runs and servers", () => {
  it("concurrent chats of one tenant on two servers never spend past the day's ceiling together", async () => {
    const { directory, chat } = await twoServers(0.02);
    await Promise.all(Array.from({ length: 12 }, (_, index) => chat(index % 2, `c${index}`, "acme")));
    const store = new JsonlEventStore(directory);
    const runs = await store.list();
    const spent = runs.reduce((sum, run) => sum + (run.outcome?.cost ?? 0), 0);
    expect(spent).toBeLessThanOrEqual(0.02);
    expect(runs.filter((run) => run.outcome?.status === "cost_budget").length).toBeGreaterThan(0);
    const ceilings = [];
    for (const run of runs) {
      const events = await store.read(run.runId);
      ceilings.push(...events.filter((event) => event.type === "ceiling.reached"));
    }
    expect(ceilings[0]).toMatchObject({ type: "ceiling.reached", window: "day", limit: 0.02 });
    expect((await store.spending.spent("acme", new Date())).day).toBeCloseTo(spent, 9);
  });

  it("another tenant is held to no one else's spending", async () => {
    const { directory, chat } = await twoServers(0.005);
    await chat(0, "a1", "acme");
    await chat(1, "a2", "acme");
    await chat(1, "g1", "globex");
    const store = new JsonlEventStore(directory);
    const outcome = async (id: string) => (await store.list()).find((run) => run.runId === id)?.outcome?.status;
    expect([await outcome("a1"), await outcome("a2"), await outcome("g1")]).toEqual(["done", "cost_budget", "done"]);
  });
});

describe("tenantBudget its runs could not be held to", () => {
  const served = (options: Parameters<typeof chatHandler>[0]["options"]) => () =>
    chatHandler({
      model: Object.assign(async () => final("x"), { modelName: "house-model" }),
      registry: new ToolRegistry(),
      store: new JsonlEventStore(join(tmpdir(), "agentloop-never-written")),
      authorize,
      ...(options === undefined ? {} : { options }),
      tenantBudget: () => ({ costPerDay: 1 }),
    });

  it("is refused when the handler is made, not at each chat: with no pricing, or a model a run may call that has no price", () => {
    expect(served(undefined)).toThrow(/^a tenant's ceiling needs the runs priced \(options\.pricing\)/);
    expect(served({ pricing: { "other-model": { input: 2, output: 8 } } })).toThrow(
      /^a tenant's ceiling needs a price for every model a run may call, and the pricing has none \(nor a "default"\) for house-model$/,
    );
    const fallback = Object.assign(async () => final("x"), { modelName: "spare" });
    expect(served({ pricing: { "house-model": { input: 2, output: 8 } }, fallbackModels: [fallback] })).toThrow(
      /for spare$/,
    );
    expect(served({ pricing: { "house-model": { input: 2, output: 8 } } })).not.toThrow();
  });
});
