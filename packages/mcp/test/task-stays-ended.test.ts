import { asks, final, MemoryEventStore, type Model, scriptedModel, toolCall } from "@agentloop/core";
import { makeMailRegistry } from "@agentloop/core/testing";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { CallToolResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { InMemoryTransport } from "@modelcontextprotocol/server";
import { afterEach, describe, expect, it } from "vitest";
import { serveAgent } from "../src/index.js";

// MCP 2025-11-25, basic/utilities/tasks, "Task Status Lifecycle": "Tasks with a completed, failed, or
// cancelled status are in a terminal state and MUST NOT transition to any other status"; "Task
// Cancellation": "Once a task is cancelled, it MUST remain in cancelled status"; "Result Retrieval":
// "For tasks in a terminal status, receivers MUST return from tasks/result exactly what the
// underlying request would have returned".

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

async function connect(replies: Parameters<typeof scriptedModel>[0] | Model) {
  const { registry } = makeMailRegistry();
  const server = serveAgent({
    name: "mailer",
    description: "Emails people.",
    model: typeof replies === "function" ? replies : scriptedModel(replies),
    registry,
    store: new MemoryEventStore(),
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: "t", version: "1.0.0" });
  await client.connect(clientSide as unknown as Transport);
  closers.push(async () => {
    await client.close();
    await server.close();
  });
  return client;
}

async function untilStatus(client: Client, taskId: string, wanted: string[]): Promise<string> {
  for (;;) {
    const task = await client.experimental.tasks.getTask(taskId);
    if (wanted.includes(task.status)) return task.status;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const text = (result: unknown) => (result as { content: { text: string }[] }).content[0]?.text ?? "";

describe("a task in a terminal status stays there while its conversation goes on", () => {
  it("a completed task: a later tools/call { runId: taskId, task } does not change its status or its result", async () => {
    const client = await connect([final("First answer."), final("Second answer.")]);
    await client.callTool({ name: "mailer", arguments: { task: "One.", runId: "done1" } }, undefined, {
      task: { ttl: 60_000 },
    });
    expect(await untilStatus(client, "done1", ["completed", "failed", "cancelled"])).toBe("completed");
    expect(text(await client.experimental.tasks.getTaskResult("done1", CallToolResultSchema))).toBe("First answer.");

    // The same id, as a plain call's runId: the README says it "takes that conversation further".
    const further = await client.callTool({ name: "mailer", arguments: { task: "Two.", runId: "done1" } });
    expect(text(further)).toBe("Second answer.");

    expect((await client.experimental.tasks.getTask("done1")).status).toBe("completed");
    expect(text(await client.experimental.tasks.getTaskResult("done1", CallToolResultSchema))).toBe("First answer.");
  });

  it("tasks/result of a completed task answers at once while a later turn of its conversation still runs", async () => {
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let calls = 0;
    const model: Model = async () => {
      calls++;
      if (calls === 1) return final("First answer.");
      await held;
      return final("Second answer.");
    };
    const client = await connect(model);
    await client.callTool({ name: "mailer", arguments: { task: "One.", runId: "held1" } }, undefined, {
      task: { ttl: 60_000 },
    });
    expect(await untilStatus(client, "held1", ["completed", "failed", "cancelled"])).toBe("completed");
    const further = client.callTool({ name: "mailer", arguments: { task: "Two.", runId: "held1" } });
    while (calls < 2) await new Promise((resolve) => setTimeout(resolve, 5));
    // The later turn is in flight and waits: the task's result does not wait for it.
    expect(text(await client.experimental.tasks.getTaskResult("held1", CallToolResultSchema))).toBe("First answer.");
    expect((await client.experimental.tasks.getTask("held1")).status).toBe("completed");
    release();
    expect(text(await further)).toBe("Second answer.");
  });

  it("a cancelled task stays cancelled after a tools/call { runId: taskId, task }", async () => {
    const client = await connect([asks(toolCall("e1", "send_email", { to: "ana" })), final("Went on anyway.")]);
    await client.callTool({ name: "mailer", arguments: { task: "Email ana.", runId: "c1" } }, undefined, {
      task: { ttl: 60_000 },
    });
    await untilStatus(client, "c1", ["input_required"]);
    expect((await client.experimental.tasks.cancelTask("c1")).status).toBe("cancelled");

    const further = await client.callTool({ name: "mailer", arguments: { task: "Go on.", runId: "c1" } });
    expect(text(further)).toBe("Went on anyway.");

    expect((await client.experimental.tasks.getTask("c1")).status).toBe("cancelled");
  });
});
