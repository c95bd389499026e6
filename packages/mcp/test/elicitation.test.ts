import {
  asks,
  final,
  MemoryEventStore,
  replayRun,
  resumeAgent,
  runAgent,
  scriptedModel,
  ToolRegistry,
  toolCall,
} from "@agentloop/core";
import { Client, InMemoryTransport, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { afterEach, describe, expect, it, vi } from "vitest";
import { answerShape, elicitationCapabilities, mcpTools } from "../src/index.js";
import { bookingServer, type ServerCall, startHttpServer } from "./fixtures/servers.mjs";

// A server's tool that elicits mid-call (`elicitation/create`) pauses the run as a question does;
// the answer goes to the server on the call made again. A real server on the official SDK, in
// process and over Streamable HTTP on 127.0.0.1.

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close().catch(() => {});
});

const CITY = { type: "object", properties: { city: { type: "string" } }, required: ["city"] };

async function inMemory(calls: ServerCall[], capabilities: object = elicitationCapabilities): Promise<Client> {
  const server = bookingServer(calls);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: "agentloop-test", version: "1.0.0" }, { capabilities });
  await client.connect(clientSide);
  closers.push(async () => {
    await client.close();
    await server.close();
  });
  return client;
}

async function overHttp(calls: ServerCall[], capabilities: object = elicitationCapabilities): Promise<Client> {
  const server = await startHttpServer(() => bookingServer(calls));
  closers.push(() => server.close());
  const client = new Client(
    { name: "agentloop-test", version: "1.0.0" },
    { capabilities, versionNegotiation: { mode: "auto" } },
  );
  await client.connect(new StreamableHTTPClientTransport(new URL(server.url)));
  closers.push(() => client.close());
  return client;
}

const model = () => scriptedModel([asks(toolCall("b1", "book_room", { nights: 2 })), final("Done.")]);
const replies = (calls: ServerCall[]) => calls.map((call) => (call.args as { reply: unknown }).reply);

describe.each([
  ["in process", inMemory],
  ["Streamable HTTP on 127.0.0.1", overHttp],
])("a server's elicitation during an mcpTools call (%s)", (_label, connect) => {
  it("pauses awaiting_input with the server's message and form, and the call made again gets { action: accept, content }", async () => {
    const calls: ServerCall[] = [];
    const registry = new ToolRegistry(await mcpTools(await connect(calls)));
    const store = new MemoryEventStore();
    const scripted = model();
    const paused = await runAgent("Book two nights.", scripted, registry, { store, runId: "r" });
    expect(paused).toMatchObject({
      status: "awaiting_input",
      pendingQuestions: [{ id: "b1", question: "Which city?", schema: answerShape(CITY) }],
    });
    expect((await store.read("r")).at(-1)).toMatchObject({ type: "tool.asked", callId: "b1", question: "Which city?" });
    // The first attempt was cut when it asked: nothing was booked.
    expect(replies(calls).filter((reply) => (reply as { action: string }).action === "accept")).toEqual([]);

    const result = await resumeAgent("r", scripted, registry, { store, answers: { b1: { city: "Lima" } } });
    expect(result.status).toBe("done");
    expect(replies(calls).at(-1)).toEqual({ action: "accept", content: { city: "Lima" } });
    const message = result.messages.find((m) => m.role === "tool");
    expect(message?.content).toMatch(
      /^"booked 2 nights in Lima"\n\(book_room asked the user a question while it ran, so the call was made again/,
    );
    expect(replayRun(await store.read("r")).result).toMatchObject({ status: "done", messages: result.messages });
  });

  it("an answer that declines or cancels the form is the server's decline or cancel, and the model sees the server's result", async () => {
    for (const action of ["decline", "cancel"] as const) {
      const calls: ServerCall[] = [];
      const registry = new ToolRegistry(await mcpTools(await connect(calls)));
      const store = new MemoryEventStore();
      const scripted = model();
      await runAgent("Book two nights.", scripted, registry, { store, runId: action });
      const result = await resumeAgent(action, scripted, registry, { store, answers: { b1: { $action: action } } });
      expect(replies(calls).at(-1)).toEqual({ action });
      expect(result.messages.find((m) => m.role === "tool")?.content).toMatch(
        new RegExp(`^"nothing booked: the user chose ${action}"\\n`),
      );
    }
  });

  it("refuses in one line an answer that fits neither the form nor a decline, logging nothing", async () => {
    const registry = new ToolRegistry(await mcpTools(await connect([])));
    const store = new MemoryEventStore();
    const scripted = model();
    await runAgent("Book two nights.", scripted, registry, { store, runId: "r" });
    const before = (await store.read("r")).length;
    const refused = resumeAgent("r", scripted, registry, { store, answers: { b1: { town: "Lima" } } });
    await expect(refused).rejects.toThrow(/^run 'r': the answer to 'b1' does not fit: /);
    await expect(refused).rejects.not.toThrow(/\n/);
    expect(await store.read("r")).toHaveLength(before);
  });

  it("a client with its own elicitation handler keeps it, told once: the server's question goes to that handler", async () => {
    const calls: ServerCall[] = [];
    const client = await connect(calls);
    client.setRequestHandler("elicitation/create", () => ({ action: "accept", content: { city: "Quito" } }));
    const warnings: string[] = [];
    const onWarning = (line: string) => warnings.push(line);
    const registry = new ToolRegistry(await mcpTools(client, { onWarning }));
    await mcpTools(client, { onWarning });
    const result = await runAgent("Book two nights.", model(), registry);
    expect(result.status).toBe("done");
    expect(replies(calls)).toEqual([{ action: "accept", content: { city: "Quito" } }]);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/^this MCP client answers elicitation\/create with its own handler, which is kept/);
  });

  it("a client that did not declare elicitation: the server is told so, and the model sees its error, as before", async () => {
    const registry = new ToolRegistry(await mcpTools(await connect([], {})));
    const result = await runAgent("Book two nights.", model(), registry);
    expect(result.status).toBe("done");
    expect(result.messages.find((m) => m.role === "tool")?.content).toMatch(/^ERROR: book_room failed: .*elicitation/i);
  });
});

it("a 2025 server's elicitation in the attempt the question cut is answered cancel, as the spec says, not a JSON-RPC error", async () => {
  // (A 2026-07-28 server asks by answering input_required: the cut call is not made again, so it sees nothing.)
  const calls: ServerCall[] = [];
  const registry = new ToolRegistry(await mcpTools(await inMemory(calls)));
  const paused = await runAgent("Book two nights.", model(), registry, { store: new MemoryEventStore(), runId: "r" });
  expect(paused.status).toBe("awaiting_input");
  await vi.waitFor(() => expect(replies(calls)).toEqual([{ action: "cancel" }]));
});
