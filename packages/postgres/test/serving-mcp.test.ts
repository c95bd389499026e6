import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import { madeSchemas } from "./schemas.js";
import { type TwoServers, twoServers } from "./serving.js";

// serveAgentHttp on two server processes sharing one Postgres schema, behind a round-robin
// balancer, called by the MCP SDK's Client over Streamable HTTP (the stateless 2026-07-28 protocol,
// whose requests any process can take). Build first.

const schemas = madeSchemas();
let servers: TwoServers;
const clients: Client[] = [];
beforeEach(async () => {
  servers = await twoServers("mcp", schemas.make());
});
afterEach(async () => {
  for (const client of clients.splice(0)) await client.close();
  await servers.close();
});
afterAll(() => schemas.drop());

/** A client that approves every call it is asked about, connected through the balancer. */
async function connected(): Promise<Client> {
  const client = new Client(
    { name: "agentloop-test", version: "1.0.0" },
    { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: "auto" } },
  );
  client.setRequestHandler("elicitation/create", () => ({ action: "accept", content: { approved: true } }));
  await client.connect(new StreamableHTTPClientTransport(new URL(servers.url("/mcp"))));
  clients.push(client);
  return client;
}

const call = (client: Client, args: { task?: string; runId: string }) =>
  client.callTool({ name: "agent", arguments: args });
const text = (result: unknown) => (result as { content: { text: string }[] }).content[0]?.text ?? "";

describe("serveAgentHttp on two processes sharing a Postgres store, behind a round-robin balancer", () => {
  it("a run whose tasks land on different processes continues: the second process answers from the whole run", async () => {
    const client = await connected();
    await servers.steer(servers.a);
    expect(text(await call(client, { task: "hello", runId: "m1" }))).toBe("A heard: hello");
    expect(text(await call(client, { task: "again", runId: "m1" }))).toBe("B heard: hello | again");
    expect(servers.takers("/mcp", "POST").slice(-2)).toEqual(["A", "B"]);
  });

  it("an approval given to the other process resumes the run there: the call's retry with the client's answer lands on it, and the tool runs once there", async () => {
    const client = await connected();
    await servers.steer(servers.a);
    const before = servers.takers("/mcp", "POST").length;
    const result = await call(client, { task: "email ana", runId: "m2" });
    // The call answered input_required on A; the SDK asked the client and sent the call again, to B.
    expect(servers.takers("/mcp", "POST").slice(before)).toEqual(["A", "B"]);
    expect(text(result)).toBe('B finished: {"sent":"ana","by":"B"}');
    expect(servers.b.told.filter((told) => told.sent !== undefined)).toEqual([{ sent: "ana" }]);
    expect(servers.a.told.filter((told) => told.sent !== undefined)).toEqual([]);
  });

  it("a call for the run on the other process follows the task in progress from the log to its end; a new task meanwhile is refused there, and nothing runs twice", async () => {
    const [first, second] = [await connected(), await connected()];
    await servers.steer(servers.a);
    const running = call(first, { task: "slow k3", runId: "m3" });
    await servers.a.when((told) => told.started === "k3", true);
    await servers.steer(servers.b);
    const watching = servers.b.when((told) => told.watching === true);
    const following = call(second, { runId: "m3" });
    await Promise.race([
      watching,
      following.then(() => {
        throw new Error("the call found no run to follow");
      }),
    ]);
    await servers.steer(servers.b);
    const refused = await call(second, { task: "hi", runId: "m3" });
    expect(refused.isError).toBe(true);
    expect(text(refused)).toContain("still going in another process");
    servers.a.release("k3");
    const answer = 'A finished: {"done":"k3","by":"A"}';
    expect(text(await running)).toBe(answer);
    expect(text(await following)).toBe(answer);
    expect(servers.takers("/mcp", "POST").slice(-3)).toEqual(["A", "B", "B"]);
    expect([...servers.a.told, ...servers.b.told].filter((told) => told.started !== undefined)).toEqual([
      { started: "k3" },
    ]);
  });
});
