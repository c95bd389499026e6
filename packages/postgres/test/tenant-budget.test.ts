import { chatHandler } from "@agentloop/ai-sdk";
import { type Model, type ModelReply, type Principal, ToolRegistry } from "@agentloop/core";
import { final } from "@agentloop/core/testing";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { PostgresEventStore } from "../src/index.js";
import { madeSchemas, POSTGRES_URL } from "./schemas.js";

// A ceiling per tenant across runs on a store many servers share: two chat servers, each with its
// own PostgresEventStore (its own pool and session of the server) on one schema, and many chats of
// one tenant at once through both. The tenant's spending never passes its day's ceiling together.

const schemas = madeSchemas();
afterAll(() => schemas.drop());
const stores: PostgresEventStore[] = [];
afterEach(async () => {
  for (const store of stores.splice(0)) await store.close();
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

const open = (schema: string) => {
  const store = new PostgresEventStore({ connectionString: POSTGRES_URL }, { schema });
  stores.push(store);
  return store;
};

function twoServers(schema: string, costPerDay: number) {
  const servers = [0, 1].map(() =>
    chatHandler({
      model,
      registry: new ToolRegistry(),
      store: open(schema),
      authorize,
      options: { pricing: { default: { input: 2, output: 8 } } },
      tenantBudget: (principal) => (principal.tenant === "acme" ? { costPerDay } : undefined),
    }),
  );
  return (server: number, id: string, tenant: string) =>
    (servers[server] as (request: Request) => Promise<Response>)(
      new Request("http://127.0.0.1/api/chat", {
        method: "POST",
        headers: { "content-type": "application/json", "x-tenant": tenant },
        body: JSON.stringify({
          id,
          messages: [{ id: `u-${id}`, role: "user", parts: [{ type: "text", text: "Hi." }] }],
        }),
      }),
    ).then((response) => response.text());
}

describe("tenantBudget on a Postgres store two servers share", () => {
  it("concurrent chats of one tenant on two servers never spend past the day's ceiling together", async () => {
    const schema = schemas.make();
    const chat = twoServers(schema, 0.02);
    await Promise.all(Array.from({ length: 16 }, (_, index) => chat(index % 2, `c${index}`, "acme")));
    const store = open(schema);
    const runs = await store.list();
    expect(runs).toHaveLength(16);
    const spent = runs.reduce((sum, run) => sum + (run.outcome?.cost ?? 0), 0);
    expect(spent).toBeLessThanOrEqual(0.02);
    const refused = runs.filter((run) => run.outcome?.status === "cost_budget");
    expect(refused.length).toBeGreaterThan(0);
    const [first] = refused;
    const events = await store.read(first?.runId ?? "");
    expect(events.find((event) => event.type === "ceiling.reached")).toMatchObject({ window: "day", limit: 0.02 });
    expect((await store.spending.spent("acme", new Date())).day).toBeCloseTo(spent, 9);
  });

  it("another tenant is held to no one else's spending", async () => {
    const schema = schemas.make();
    const chat = twoServers(schema, 0.005);
    await chat(0, "a1", "acme");
    await chat(1, "a2", "acme");
    await chat(1, "g1", "globex");
    const runs = await open(schema).list();
    const outcome = (id: string) => runs.find((run) => run.runId === id)?.outcome?.status;
    expect([outcome("a1"), outcome("a2"), outcome("g1")]).toEqual(["done", "cost_budget", "done"]);
  });
});
