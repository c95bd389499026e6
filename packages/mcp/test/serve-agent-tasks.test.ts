import { fileURLToPath } from "node:url";
import { asks, final, MemoryEventStore, type ModelReply, scriptedModel, toolCall } from "@agentloop/core";
import type { AgentOptions } from "@agentloop/core/machine";
import { makeMailRegistry } from "@agentloop/core/testing";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { CallToolResultSchema, ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { InMemoryTransport } from "@modelcontextprotocol/server";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { type ServeOptions, serveAgent, serveAgentHttp } from "../src/index.js";
import { listenMcp } from "./http-server.js";

// The MCP SDK 1.x client is the published client with a task runtime (`experimental.tasks`):
// it polls `tasks/get`, and on `input_required` calls `tasks/result`, answering the forms sent there.

type Serve = ServeOptions & { name: string; description: string };
type Answer = { action: "accept" | "decline"; content?: Record<string, boolean | string> };

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

function emailAgent(replies: ModelReply[], options?: Serve["options"]) {
  const { registry, sent } = makeMailRegistry();
  const store = new MemoryEventStore();
  const model = scriptedModel(replies);
  const serve: Serve = { name: "mailer", description: "Emails people.", model, registry, store };
  return { serve: options === undefined ? serve : { ...serve, options }, sent, store };
}

interface Asked {
  message: string;
  taskId: unknown;
}

function taskClient(answer: Answer | null): { client: Client; asked: Asked[] } {
  const asked: Asked[] = [];
  const client = new Client(
    { name: "agentloop-test", version: "1.0.0" },
    { capabilities: answer === null ? {} : { elicitation: { form: {} } } },
  );
  if (answer !== null) {
    client.setRequestHandler(ElicitRequestSchema, (request) => {
      const related = request.params._meta?.["io.modelcontextprotocol/related-task"] as
        | { taskId?: unknown }
        | undefined;
      asked.push({ message: request.params.message, taskId: related?.taskId });
      return answer;
    });
  }
  return { client, asked };
}

async function inMemory(serve: Serve, answer: Answer | null) {
  const server = serveAgent(serve);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const { client, asked } = taskClient(answer);
  await client.connect(clientSide as unknown as Transport);
  closers.push(async () => {
    await client.close();
    await server.close();
  });
  return { client, asked };
}

const endpoints = new Map<Serve, URL>();
async function endpointFor(serve: Serve): Promise<URL> {
  const known = endpoints.get(serve);
  if (known !== undefined) return known;
  const handler = serveAgentHttp(serve);
  const http = await listenMcp((request) => handler.fetch(request));
  const { url } = http;
  endpoints.set(serve, url);
  closers.push(async () => {
    endpoints.delete(serve);
    await handler.close();
    await http.close();
  });
  return url;
}

async function overHttp(serve: Serve, answer: Answer | null) {
  const url = await endpointFor(serve);
  const { client, asked } = taskClient(answer);
  await client.connect(new StreamableHTTPClientTransport(url));
  closers.push(() => client.close());
  return { client, asked };
}

/** Follows a task-augmented call the SDK's way; the messages it yields, and the statuses it saw. */
async function followTask(client: Client, args: Record<string, unknown>) {
  const messages = [];
  for await (const message of client.experimental.tasks.callToolStream(
    { name: "mailer", arguments: args },
    CallToolResultSchema,
    { task: { ttl: 60_000 } },
  )) {
    messages.push(message);
  }
  const created = messages.find((message) => message.type === "taskCreated");
  const statuses = messages.flatMap((message) => (message.type === "taskStatus" ? [message.task.status] : []));
  const result = messages.find((message) => message.type === "result");
  const error = messages.find((message) => message.type === "error");
  return {
    taskId: created?.type === "taskCreated" ? created.task.taskId : undefined,
    statuses,
    result: result?.type === "result" ? result.result : undefined,
    error: error?.type === "error" ? error.error.message : undefined,
  };
}

const text = (result: unknown) => (result as { content: { text: string }[] }).content[0]?.text ?? "";

/** Waits until the run's task shows `status` (the client polls as the server asks it to). */
async function untilStatus(client: Client, taskId: string, status: string): Promise<void> {
  for (;;) {
    const task = await client.experimental.tasks.getTask(taskId);
    if (task.status === status) return;
    await new Promise((resolve) => setTimeout(resolve, task.pollInterval ?? 50));
  }
}

describe.each([
  ["in memory", inMemory],
  ["Streamable HTTP on 127.0.0.1", overHttp],
])("serveAgent's tasks %s, with the MCP SDK 1.x client's task runtime", (_label, connect) => {
  it("lists the tool as one that may run as a task", async () => {
    const { serve } = emailAgent([]);
    const { client } = await connect(serve, null);
    const { tools } = await client.listTools();
    expect(tools.map((tool) => [tool.name, tool.execution?.taskSupport])).toEqual([["mailer", "optional"]]);
    expect(client.getServerCapabilities()?.tasks?.requests?.tools?.call).toEqual({});
  });

  it("follows a task through input_required: the run id is the task id, the approval is answered through the task", async () => {
    const { serve, sent, store } = emailAgent([
      asks(toolCall("e1", "send_email", { to: "ana" })),
      final("Sent to ana."),
    ]);
    const { client, asked } = await connect(serve, { action: "accept", content: { approved: true } });
    const followed = await followTask(client, { task: "Email ana.", runId: "t1" });
    expect(followed.error).toBeUndefined();
    expect(followed.taskId).toBe("t1");
    expect(followed.statuses.at(-1)).toBe("input_required");
    expect(asked).toEqual([{ message: 'Approve send_email with {"to":"ana"}?', taskId: "t1" }]);
    expect(sent).toEqual(["ana"]);
    expect(text(followed.result)).toBe("Sent to ana.");
    expect((await client.experimental.tasks.getTask("t1")).status).toBe("completed");
    expect((await store.read("t1")).at(-1)).toMatchObject({ type: "run.finished", outcome: { status: "done" } });
  });

  it("a declined form denies the call; the task completes with the answer", async () => {
    const { serve, sent } = emailAgent([
      asks(toolCall("e1", "send_email", { to: "ana" })),
      final("I did not email ana."),
    ]);
    const { client } = await connect(serve, { action: "decline" });
    const followed = await followTask(client, { task: "Email ana." });
    expect(sent).toEqual([]);
    expect(text(followed.result)).toBe("I did not email ana.");
  });
});

describe("serveAgent's tasks over stdio", () => {
  it("a child process serving the agent: the task goes through input_required to the answer", async () => {
    const { client, asked } = taskClient({ action: "accept", content: { approved: true } });
    const script = fileURLToPath(new URL("./fixtures/mailer-stdio.mjs", import.meta.url));
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [script], stderr: "pipe" }));
    closers.push(() => client.close());
    const followed = await followTask(client, { task: "Email ana.", runId: "s1" });
    expect(followed.taskId).toBe("s1");
    expect(followed.statuses.at(-1)).toBe("input_required");
    expect(asked).toEqual([{ message: 'Approve send_email with {"to":"ana"}?', taskId: "s1" }]);
    expect(text(followed.result)).toBe("Sent to ana.");
  });
});

describe("serveAgent's tasks: results, reconnecting, cancelling, bad input", () => {
  it("tasks/result gives the typed output as structuredContent", async () => {
    const output = z.object({ city: z.string(), celsius: z.number() });
    const { serve } = emailAgent([final('{"city":"Pune","celsius":31}')], { output });
    const { client } = await inMemory(serve, null);
    const followed = await followTask(client, { task: "Weather in Pune as JSON." });
    expect(followed.result?.structuredContent).toEqual({ city: "Pune", celsius: 31 });
    expect(text(followed.result)).toBe('{"city":"Pune","celsius":31}');
  });

  it("a client that comes back on a new connection is asked there, and a later one reads the result from the log", async () => {
    const { serve, sent, store } = emailAgent([asks(toolCall("e1", "send_email", { to: "ana" })), final("Sent.")]);
    const first = await overHttp(serve, null);
    const created = await first.client.callTool(
      { name: "mailer", arguments: { task: "Email ana.", runId: "back" } },
      undefined,
      { task: { ttl: 60_000 } },
    );
    expect(created).toMatchObject({ task: { taskId: "back", status: "working" } });
    await untilStatus(first.client, "back", "input_required");
    await first.client.close();

    const again = await overHttp(serve, { action: "accept", content: { approved: true } });
    expect((await again.client.experimental.tasks.getTask("back")).statusMessage).toBe(
      "waiting for approval of send_email",
    );
    const result = await again.client.experimental.tasks.getTaskResult("back", CallToolResultSchema);
    expect(text(result)).toBe("Sent.");
    expect(result._meta?.["io.modelcontextprotocol/related-task"]).toEqual({ taskId: "back" });
    expect(again.asked.map((question) => question.taskId)).toEqual(["back"]);
    await again.client.close();

    // The model's script is spent: anything run again would throw "script ran out".
    const later = await inMemory(serve, null);
    expect((await later.client.experimental.tasks.getTask("back")).status).toBe("completed");
    expect(text(await later.client.experimental.tasks.getTaskResult("back", CallToolResultSchema))).toBe("Sent.");
    expect(sent).toEqual(["ana"]);
    expect((await store.read("back")).filter((event) => event.type === "model.replied")).toHaveLength(2);
  });

  it("tasks/cancel ends a waiting run cancelled: its log says so, and tasks/result tells it", async () => {
    const { serve, sent, store } = emailAgent([asks(toolCall("e1", "send_email", { to: "ana" })), final("Sent.")]);
    const { client } = await inMemory(serve, null);
    await client.callTool({ name: "mailer", arguments: { task: "Email ana.", runId: "c1" } }, undefined, {
      task: { ttl: 60_000 },
    });
    await untilStatus(client, "c1", "input_required");
    expect((await client.experimental.tasks.cancelTask("c1")).status).toBe("cancelled");
    expect((await store.read("c1")).at(-1)).toMatchObject({ type: "run.finished", outcome: { status: "cancelled" } });
    const result = await client.experimental.tasks.getTaskResult("c1", CallToolResultSchema);
    expect(result.isError).toBe(true);
    expect(text(result)).toBe("The run ended cancelled.");
    expect(sent).toEqual([]);
    await expect(client.experimental.tasks.cancelTask("c1")).rejects.toThrow(
      "Cannot cancel task 'c1': it is cancelled",
    );
  });

  it("a run that ends other than done is a failed task, its result an error naming how it ended", async () => {
    const loop = asks(toolCall("e1", "send_email", { to: "ana" }));
    const options: AgentOptions = { maxSteps: 1 };
    const { serve } = emailAgent([loop], options);
    const { client } = await inMemory(serve, { action: "accept", content: { approved: true } });
    const followed = await followTask(client, { task: "Email ana.", runId: "f1" });
    expect(followed.statuses.at(-1)).toBe("input_required");
    expect(text(followed.result)).toBe("The run ended step_limit.");
    const task = await client.experimental.tasks.getTask("f1");
    expect([task.status, task.statusMessage]).toEqual(["failed", "the run ended step_limit"]);
  });

  it("a client that cannot answer forms is told so by tasks/result; the run stays waiting", async () => {
    const { serve, sent } = emailAgent([asks(toolCall("e1", "send_email", { to: "ana" })), final("Sent.")]);
    const { client } = await inMemory(serve, null);
    await client.callTool({ name: "mailer", arguments: { task: "Email ana.", runId: "n1" } }, undefined, {
      task: { ttl: 60_000 },
    });
    await untilStatus(client, "n1", "input_required");
    await expect(client.experimental.tasks.getTaskResult("n1", CallToolResultSchema)).rejects.toThrow(
      "Cannot ask for the approval of 'e1' (send_email)",
    );
    expect((await client.experimental.tasks.getTask("n1")).status).toBe("input_required");
    expect(sent).toEqual([]);
  });

  it.each([
    [{}, "a task-augmented call needs a task"],
    [
      { task: "hi", runId: "../x" },
      "runId '../x' cannot name a run: use 1-128 letters, digits, '_', '-' or '.', not starting with '.'",
    ],
    [{ task: "hi", runId: 7 }, "Input validation error: Invalid arguments for tool mailer"],
  ])(
    "refuses the task-augmented call %j as a JSON-RPC error, which the SDK's task runtime tells",
    async (args, message) => {
      const { serve } = emailAgent([]);
      const { client } = await inMemory(serve, null);
      const call = { name: "mailer", arguments: args };
      await expect(client.callTool(call, undefined, { task: { ttl: 60_000 } })).rejects.toThrow(
        `MCP error -32602: ${message}`,
      );
      const streamed = [];
      for await (const part of client.experimental.tasks.callToolStream(call, CallToolResultSchema, {
        task: { ttl: 60_000 },
      })) {
        streamed.push(part);
      }
      expect(streamed).toHaveLength(1);
      expect(streamed[0]?.type === "error" ? streamed[0].error.message : "").toContain(message);
    },
  );

  it("answers a task-augmented call the store fails as an internal JSON-RPC error, told as the serving options say", async () => {
    const { serve, store } = emailAgent([final("Hello.")]);
    const errors: unknown[] = [];
    const failing = Object.assign(Object.create(store) as MemoryEventStore, {
      read: () => Promise.reject(new Error("disk on fire")),
    });
    const { client } = await inMemory({ ...serve, store: failing, onError: (error) => errors.push(error) }, null);
    const call = { name: "mailer", arguments: { task: "Say hello.", runId: "f1" } };
    await expect(client.callTool(call, undefined, { task: { ttl: 60_000 } })).rejects.toThrow(
      "MCP error -32603: the agent failed (f1)",
    );
    expect(errors).toEqual([new Error("disk on fire")]);
  });

  it("refuses a task for a run the store already holds, and tasks of runs it does not know", async () => {
    const { serve } = emailAgent([final("Hello.")]);
    const { client } = await inMemory(serve, null);
    await client.callTool({ name: "mailer", arguments: { task: "Say hello.", runId: "k1" } });
    const again = client.callTool({ name: "mailer", arguments: { task: "Again.", runId: "k1" } }, undefined, {
      task: { ttl: 60_000 },
    });
    await expect(again).rejects.toThrow(
      "MCP error -32602: run 'k1' is already known: a task starts a new run (follow that one with tasks/get)",
    );
    await expect(client.experimental.tasks.getTask("nobody")).rejects.toThrow("Task not found: 'nobody' names no run");
    await expect(client.experimental.tasks.getTaskResult("nobody", CallToolResultSchema)).rejects.toThrow(
      "Task not found",
    );
    await expect(client.experimental.tasks.cancelTask("nobody")).rejects.toThrow("Task not found");
  });
});
