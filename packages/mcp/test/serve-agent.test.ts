import { asks, final, MemoryEventStore, type ModelReply, scriptedModel, toolCall } from "@agentloop/core";
import { makeMailRegistry } from "@agentloop/core/testing";
import { Client, InMemoryTransport, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { createMcpHandler } from "@modelcontextprotocol/server";
import { afterEach, describe, expect, it } from "vitest";
import { RUN_ID_META, type ServeOptions, serveAgent } from "../src/index.js";
import { listenMcp } from "./http-server.js";

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

function emailAgent(replies: ModelReply[]): {
  serve: ServeOptions & { name: string; description: string };
  sent: string[];
  store: MemoryEventStore;
} {
  const { registry, sent } = makeMailRegistry();
  const store = new MemoryEventStore();
  return {
    serve: { name: "mailer", description: "Emails people.", model: scriptedModel(replies), registry, store },
    sent,
    store,
  };
}

type Elicit = (params: { message: string; requestedSchema: unknown }) => {
  action: "accept" | "decline" | "cancel";
  content?: Record<string, boolean | string>;
};

function clientWith(elicit: Elicit | null): { client: Client; asked: string[] } {
  const asked: string[] = [];
  const client = new Client(
    { name: "agentloop-test", version: "1.0.0" },
    { capabilities: elicit === null ? {} : { elicitation: { form: {} } }, versionNegotiation: { mode: "auto" } },
  );
  if (elicit !== null) {
    client.setRequestHandler("elicitation/create", (request) => {
      const params = request.params as { message: string; requestedSchema: unknown };
      asked.push(params.message);
      return elicit(params);
    });
  }
  return { client, asked };
}

async function inMemory(serve: ServeOptions & { name: string; description: string }, elicit: Elicit | null) {
  const server = serveAgent(serve);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const { client, asked } = clientWith(elicit);
  await client.connect(clientSide);
  closers.push(async () => {
    await client.close();
    await server.close();
  });
  return { client, asked };
}

async function overHttp(serve: ServeOptions & { name: string; description: string }, elicit: Elicit | null) {
  const handler = createMcpHandler(() => serveAgent(serve));
  const http = await listenMcp((request) => handler.fetch(request));
  const { client, asked } = clientWith(elicit);
  await client.connect(new StreamableHTTPClientTransport(http.url));
  closers.push(() => http.close());
  closers.push(() => client.close());
  return { client, asked };
}

const text = (result: unknown) => (result as { content: { text: string }[] }).content[0]?.text ?? "";

describe.each([
  ["in memory", inMemory],
  ["Streamable HTTP on 127.0.0.1", overHttp],
])("serveAgent %s, with the MCP SDK's client", (_label, connect) => {
  it("lists the agent as one tool and calls it: the answer as text, the run id in _meta", async () => {
    const { serve, store } = emailAgent([final("Hello.")]);
    const { client } = await connect(serve, null);
    const { tools } = await client.listTools();
    expect(tools.map((tool) => [tool.name, tool.description])).toEqual([["mailer", "Emails people."]]);
    const result = await client.callTool({ name: "mailer", arguments: { task: "Say hello.", runId: "hello" } });
    expect(text(result)).toBe("Hello.");
    expect(result.isError).not.toBe(true);
    expect(result._meta?.[RUN_ID_META]).toBe("hello");
    expect((await store.read("hello")).at(-1)).toMatchObject({ type: "run.finished" });
  });

  it("a waiting approval is input_required: the client's form decides the call and the run goes on", async () => {
    const { serve, sent } = emailAgent([asks(toolCall("e1", "send_email", { to: "ana" })), final("Sent to ana.")]);
    const { client, asked } = await connect(serve, () => ({ action: "accept", content: { approved: true } }));
    const result = await client.callTool({ name: "mailer", arguments: { task: "Email ana." } });
    expect(asked).toEqual(['Approve send_email with {"to":"ana"}?']);
    expect(sent).toEqual(["ana"]);
    expect(text(result)).toBe("Sent to ana.");
  });

  it("a declined form denies the call: nothing is sent", async () => {
    const { serve, sent } = emailAgent([
      asks(toolCall("e1", "send_email", { to: "ana" })),
      final("I did not email ana."),
    ]);
    const { client } = await connect(serve, () => ({ action: "decline" }));
    const result = await client.callTool({ name: "mailer", arguments: { task: "Email ana." } });
    expect(sent).toEqual([]);
    expect(text(result)).toBe("I did not email ana.");
  });
});

describe("serveAgent: reconnecting and bad input", () => {
  it("a client that comes back gets the result from the log, without running anything again", async () => {
    const { serve, store } = emailAgent([final("Hello.")]);
    const first = await inMemory(serve, null);
    await first.client.callTool({ name: "mailer", arguments: { task: "Say hello.", runId: "r1" } });
    await first.client.close();
    // The model's script has one reply: a second run would throw "script ran out".
    const again = await inMemory(serve, null);
    const result = await again.client.callTool({ name: "mailer", arguments: { runId: "r1" } });
    expect(text(result)).toBe("Hello.");
    expect((await store.read("r1")).filter((event) => event.type === "model.replied")).toHaveLength(1);
  });

  it("a client that comes back to a paused run is asked for the decision again", async () => {
    const { serve, sent } = emailAgent([asks(toolCall("e1", "send_email", { to: "ana" })), final("Sent.")]);
    // A client that cannot answer forms leaves the run paused.
    const first = await inMemory(serve, null);
    const unanswered = await first.client.callTool({ name: "mailer", arguments: { task: "Email ana.", runId: "p1" } });
    expect(unanswered.isError).toBe(true);
    expect(text(unanswered)).toContain("Cannot request input 'e1'");
    expect(sent).toEqual([]);
    const again = await inMemory(serve, () => ({ action: "accept", content: { approved: true } }));
    const result = await again.client.callTool({ name: "mailer", arguments: { runId: "p1" } });
    expect(text(result)).toBe("Sent.");
    expect(sent).toEqual(["ana"]);
  });

  it.each([
    [{}, "give a task, or the runId of a run to read back"],
    [{ runId: "nobody" }, "run 'nobody' is not known"],
    [
      { task: "hi", runId: "../x" },
      "runId '../x' cannot name a run: use 1-128 letters, digits, '_', '-' or '.', not starting with '.'",
    ],
    [{ task: " " }, "task must not be empty"],
  ])("refuses %j as a tool error", async (args, message) => {
    const { serve } = emailAgent([]);
    const { client } = await inMemory(serve, null);
    const result = await client.callTool({ name: "mailer", arguments: args });
    expect(result.isError).toBe(true);
    expect(text(result)).toBe(message);
  });
});
