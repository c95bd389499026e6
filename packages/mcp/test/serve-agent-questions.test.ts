import { asks, askUserTool, final, MemoryEventStore, scriptedModel, ToolRegistry, toolCall } from "@agentloop/core";
import { InMemoryTransport as ClientMemoryTransport, Client as ClientV2 } from "@modelcontextprotocol/client";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { CallToolResultSchema, ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { InMemoryTransport } from "@modelcontextprotocol/server";
import { afterEach, describe, expect, it } from "vitest";
import { type ServeOptions, serveAgent } from "../src/index.js";

// The MCP SDK 1.x client's task runtime: it polls `tasks/get`, and on `input_required` calls
// `tasks/result`, answering the elicitation forms the server sends there.

type Serve = ServeOptions & { name: string; description: string };
type Answer = { action: "accept" | "decline"; content?: Record<string, string | number | boolean> };
interface Asked {
  message: string;
  schema: unknown;
  taskId: unknown;
}

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

const TRIP = {
  type: "object" as const,
  properties: { city: { type: "string", pattern: "^[A-Z]" }, days: { type: "integer", minimum: 1 } },
  required: ["city", "days"],
};
/** The form the trip question is asked with: what an elicitation field can say (no `pattern`). */
const FORM = {
  type: "object",
  properties: { city: { type: "string" }, days: { type: "integer", minimum: 1 } },
  required: ["city", "days"],
};

function tripAgent(answer?: ServeOptions["registry"]): Serve {
  const model = scriptedModel([
    asks(toolCall("q1", "ask_user", { question: "Where to, and for how long?" })),
    final("Packing for the trip."),
  ]);
  const registry = answer ?? new ToolRegistry([askUserTool({ answer: TRIP })]);
  return { name: "planner", description: "Plans trips.", model, registry, store: new MemoryEventStore() };
}

async function connect(serve: Serve, answer: Answer) {
  const server = serveAgent(serve);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const asked: Asked[] = [];
  const client = new Client(
    { name: "agentloop-test", version: "1.0.0" },
    { capabilities: { elicitation: { form: {} } } },
  );
  client.setRequestHandler(ElicitRequestSchema, (request) => {
    const params = request.params as { message: string; requestedSchema?: unknown; _meta?: Record<string, unknown> };
    const related = params._meta?.["io.modelcontextprotocol/related-task"] as { taskId?: unknown } | undefined;
    asked.push({ message: params.message, schema: params.requestedSchema, taskId: related?.taskId });
    return answer;
  });
  await client.connect(clientSide as unknown as Transport);
  closers.push(async () => {
    await client.close();
    await server.close();
  });
  return { client, asked };
}

async function startTask(client: Client, runId: string): Promise<void> {
  await client.callTool({ name: "planner", arguments: { task: "Plan my trip.", runId } }, undefined, {
    task: { ttl: 60_000 },
  });
  for (;;) {
    const task = await client.experimental.tasks.getTask(runId);
    if (task.status === "input_required") return;
    await new Promise((resolve) => setTimeout(resolve, task.pollInterval ?? 50));
  }
}

const text = (result: unknown) => (result as { content: { text: string }[] }).content[0]?.text ?? "";
const answersOf = async (serve: Serve, runId: string) =>
  (await serve.store.read(runId)).filter((event) => event.type === "question.answered");

describe("a question of askUserTool in an MCP task", () => {
  it("makes the task input_required; tasks/result asks it as a form related to the task, and the accepted form is the answer", async () => {
    const serve = tripAgent();
    const { client, asked } = await connect(serve, { action: "accept", content: { city: "Lima", days: 3 } });
    await startTask(client, "t1");
    expect((await client.experimental.tasks.getTask("t1")).statusMessage).toBe(
      "waiting for an answer to: Where to, and for how long?",
    );
    const result = await client.experimental.tasks.getTaskResult("t1", CallToolResultSchema);
    expect(text(result)).toBe("Packing for the trip.");
    expect(asked).toEqual([{ message: "Where to, and for how long?", schema: FORM, taskId: "t1" }]);
    expect(await answersOf(serve, "t1")).toMatchObject([{ callId: "q1", answer: { city: "Lima", days: 3 } }]);
    expect((await client.experimental.tasks.getTask("t1")).status).toBe("completed");
  });

  it("a question with no shape is asked as one text field; the text is the answer", async () => {
    const serve = tripAgent(new ToolRegistry([askUserTool()]));
    const { client, asked } = await connect(serve, { action: "accept", content: { answer: "Lima, 3 days" } });
    await startTask(client, "t2");
    expect(text(await client.experimental.tasks.getTaskResult("t2", CallToolResultSchema))).toBe(
      "Packing for the trip.",
    );
    expect(asked[0]?.schema).toMatchObject({ properties: { answer: { type: "string" } }, required: ["answer"] });
    expect(await answersOf(serve, "t2")).toMatchObject([{ answer: "Lima, 3 days" }]);
  });

  it("an answer off the question's shape is refused in one line: nothing logged, the task still input_required", async () => {
    const serve = tripAgent();
    // The form cannot carry `pattern`: the run checks the answer against the question's own shape.
    const { client } = await connect(serve, { action: "accept", content: { city: "lima", days: 3 } });
    await startTask(client, "t3");
    const before = (await serve.store.read("t3")).length;
    await expect(client.experimental.tasks.getTaskResult("t3", CallToolResultSchema)).rejects.toThrow(
      /the answer to 'q1' does not fit/,
    );
    expect(await serve.store.read("t3")).toHaveLength(before);
    expect((await client.experimental.tasks.getTask("t3")).status).toBe("input_required");
  });

  it("a declined form leaves the question waiting, and the client is told", async () => {
    const serve = tripAgent();
    const { client } = await connect(serve, { action: "decline" });
    await startTask(client, "t4");
    await expect(client.experimental.tasks.getTaskResult("t4", CallToolResultSchema)).rejects.toThrow(
      "Question 'q1' was not answered",
    );
    expect((await client.experimental.tasks.getTask("t4")).status).toBe("input_required");
    expect(await answersOf(serve, "t4")).toEqual([]);
  });

  it("two clients asking for the result at once: one is asked, both get the result, the log holds one answer", async () => {
    const serve = tripAgent();
    const first = await connect(serve, { action: "accept", content: { city: "Lima", days: 3 } });
    const second = await connect(serve, { action: "accept", content: { city: "Oslo", days: 1 } });
    await startTask(first.client, "t5");
    const results = await Promise.all([
      first.client.experimental.tasks.getTaskResult("t5", CallToolResultSchema),
      second.client.experimental.tasks.getTaskResult("t5", CallToolResultSchema),
    ]);
    expect(results.map(text)).toEqual(["Packing for the trip.", "Packing for the trip."]);
    expect(first.asked.length + second.asked.length).toBe(1);
    expect(await answersOf(serve, "t5")).toHaveLength(1);
  });
});

/** The MCP SDK 2 client, which answers a plain `tools/call`'s input_required with the forms it asks and retries the call. */
async function connectV2(serve: Serve, answer: Answer) {
  const server = serveAgent(serve);
  const [clientSide, serverSide] = ClientMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const asked: string[] = [];
  const client = new ClientV2(
    { name: "agentloop-test", version: "1.0.0" },
    { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: "auto" } },
  );
  client.setRequestHandler("elicitation/create", (request) => {
    asked.push((request.params as { message: string }).message);
    return answer;
  });
  await client.connect(clientSide);
  closers.push(async () => {
    await client.close();
    await server.close();
  });
  return { client, asked };
}

describe("a question of askUserTool in a plain tools/call", () => {
  it("is input_required: the client's accepted form is the answer, and the call's retry returns the run's answer", async () => {
    const serve = tripAgent();
    const { client, asked } = await connectV2(serve, { action: "accept", content: { city: "Lima", days: 3 } });
    const result = await client.callTool({ name: "planner", arguments: { task: "Plan my trip.", runId: "p1" } });
    expect(asked).toEqual(["Where to, and for how long?"]);
    expect(text(result)).toBe("Packing for the trip.");
    expect(await answersOf(serve, "p1")).toMatchObject([{ callId: "q1", answer: { city: "Lima", days: 3 } }]);
  });

  it("a declined form is a tool error saying the question was not answered; the run still waits", async () => {
    const serve = tripAgent();
    const { client } = await connectV2(serve, { action: "decline" });
    const result = await client.callTool({ name: "planner", arguments: { task: "Plan my trip.", runId: "p2" } });
    expect(result.isError).toBe(true);
    expect(text(result)).toBe("question 'q1' was not answered: the client's form was not accepted");
    expect(await answersOf(serve, "p2")).toEqual([]);
  });
});
