import { HttpAgent } from "@ag-ui/client";
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import { madeSchemas } from "./schemas.js";
import { type TwoServers, twoServers } from "./serving.js";

// agUiHandler on two server processes sharing one Postgres schema, behind a round-robin balancer,
// driven by @ag-ui/client's HttpAgent. Build first.

const schemas = madeSchemas();
let servers: TwoServers;
beforeEach(async () => {
  servers = await twoServers("ag-ui", schemas.make());
});
afterEach(() => servers.close());
afterAll(() => schemas.drop());

/** Runs `agent` once; the result its RUN_FINISHED carried, or its interrupts' ids. */
async function run(agent: HttpAgent, parameters: Parameters<HttpAgent["runAgent"]>[0] = {}) {
  let result: unknown;
  let interrupts: string[] = [];
  await agent.runAgent(parameters, {
    onRunFinishedEvent: (params) => {
      if (params.outcome === "interrupt") interrupts = params.interrupts.map((interrupt) => interrupt.id);
      else if (params.outcome === "success") result = params.result;
    },
  });
  return { result, interrupts };
}

const lastText = (agent: HttpAgent) =>
  agent.messages.filter((message) => message.role === "assistant" && typeof message.content === "string").at(-1)
    ?.content;

describe("agUiHandler on two processes sharing a Postgres store, behind a round-robin balancer", () => {
  it("a thread whose runs land on different processes continues: the second process answers from the whole thread", async () => {
    const agent = new HttpAgent({ url: servers.url("/agent"), threadId: "thread-1" });
    await servers.steer(servers.a);
    agent.addMessage({ id: "u1", role: "user", content: "hello" });
    expect((await run(agent)).result).toEqual({ status: "done", answer: "A heard: hello" });
    agent.addMessage({ id: "u2", role: "user", content: "again" });
    expect((await run(agent)).result).toEqual({ status: "done", answer: "B heard: hello | again" });
    expect(servers.takers("/agent")).toEqual(["A", "B"]);
    expect(lastText(agent)).toBe("B heard: hello | again");
  });

  it("an approval given to the other process resumes the run there: the tool runs once, on that process", async () => {
    const agent = new HttpAgent({ url: servers.url("/agent"), threadId: "thread-2" });
    await servers.steer(servers.a);
    agent.addMessage({ id: "u1", role: "user", content: "email ana" });
    expect((await run(agent)).interrupts).toEqual(["e1"]);
    const resumed = await run(agent, {
      resume: [{ interruptId: "e1", status: "resolved", payload: { approved: true } }],
    });
    expect(resumed.result).toEqual({ status: "done", answer: 'B finished: {"sent":"ana","by":"B"}' });
    expect(servers.takers("/agent")).toEqual(["A", "B"]);
    expect(servers.b.told.filter((told) => told.sent !== undefined)).toEqual([{ sent: "ana" }]);
    expect(servers.a.told.filter((told) => told.sent !== undefined)).toEqual([]);
  });

  it("a reload on the other process follows the run in progress from the log to its end; a message meanwhile is refused there, and nothing runs twice", async () => {
    const agent = new HttpAgent({ url: servers.url("/agent"), threadId: "thread-3" });
    await servers.steer(servers.a);
    agent.addMessage({ id: "u1", role: "user", content: "slow k3" });
    const running = run(agent);
    await servers.a.when((told) => told.started === "k3", true);
    // A reloaded page: an agent for the thread that sends nothing new, which follows the run going on A.
    const reloaded = new HttpAgent({ url: servers.url("/agent"), threadId: "thread-3" });
    await servers.steer(servers.b);
    const watching = servers.b.when((told) => told.watching === true);
    const following = run(reloaded);
    await Promise.race([
      watching,
      following.then(() => {
        throw new Error("the reload found no run to follow");
      }),
    ]);
    await servers.steer(servers.b);
    const refused = await fetch(servers.url("/agent"), {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        threadId: "thread-3",
        runId: "x",
        state: {},
        messages: [{ id: "u9", role: "user", content: "hi" }],
        tools: [],
        context: [],
        forwardedProps: {},
      }),
    });
    expect(refused.status).toBe(409);
    expect(await refused.json()).toEqual({ error: expect.stringContaining("still going in another process") });
    servers.a.release("k3");
    const answer = 'A finished: {"done":"k3","by":"A"}';
    expect((await running).result).toEqual({ status: "done", answer });
    expect((await following).result).toEqual({ status: "done", answer });
    expect(servers.takers("/agent")).toEqual(["A", "B", "B"]);
    expect(reloaded.messages.map((message) => message.role)).toEqual(["assistant", "tool", "assistant"]);
    expect(lastText(reloaded)).toBe(answer);
    expect([...servers.a.told, ...servers.b.told].filter((told) => told.started !== undefined)).toEqual([
      { started: "k3" },
    ]);
  });
});
