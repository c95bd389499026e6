import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { Client as TaskClient } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as TaskTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CallToolResultSchema, ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it } from "vitest";
import { fixture, startCli } from "./cli.js";

const children: ReturnType<typeof startCli>[] = [];
afterEach(() => {
  for (const child of children.splice(0)) child.kill("SIGTERM");
});

/** Starts `agentloop serve` and resolves with the URL it prints once it listens. */
function serve(args: readonly string[]): Promise<string> {
  const child = startCli(["serve", ...args]);
  children.push(child);
  return new Promise((resolve, reject) => {
    let out = "";
    let err = "";
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      const url = /(http:\/\/127\.0\.0\.1:\d+\/\S*)/.exec(out)?.[1];
      if (url !== undefined) resolve(url);
    });
    child.stderr.on("data", (chunk: Buffer) => {
      err += chunk.toString();
    });
    child.on("exit", (code) => reject(new Error(`serve exited ${code}: ${err}`)));
  });
}

function sseEvents(text: string): { type: string; [key: string]: unknown }[] {
  return text
    .split("\n\n")
    .filter((frame) => frame.startsWith("data: ") && frame !== "data: [DONE]")
    .map((frame) => JSON.parse(frame.slice(6)) as { type: string });
}

const store = () => mkdtempSync(join(tmpdir(), "agentloop-serve-"));

describe("agentloop serve", () => {
  it("--ag-ui: a run pauses on an approval as an interrupt, and resume[] takes it to the answer", async () => {
    const url = await serve([
      "--ag-ui",
      "--port",
      "0",
      "--tools",
      fixture("tools.mjs"),
      "--script",
      fixture("approval-full.json"),
      "--store",
      store(),
    ]);
    const post = (body: unknown) =>
      fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
    const input = {
      threadId: "delhi",
      runId: "r1",
      messages: [{ id: "u1", role: "user", content: "Report Delhi's weather." }],
      tools: [],
      context: [],
    };
    const first = sseEvents(await (await post(input)).text());
    expect(first.at(-1)).toMatchObject({
      type: "RUN_FINISHED",
      outcome: { type: "interrupt", interrupts: [{ id: "m1", toolCallId: "m1" }] },
    });
    const second = sseEvents(
      await (await post({ ...input, runId: "r2", resume: [{ interruptId: "m1", status: "resolved" }] })).text(),
    );
    expect(second.at(-1)).toMatchObject({
      type: "RUN_FINISHED",
      result: { status: "done", answer: "It is 35 C in Delhi; the report went out." },
    });
  });

  it("--mcp: the MCP SDK's client lists the agent and calls it", async () => {
    const url = await serve([
      "--mcp",
      "--port",
      "0",
      "--name",
      "weather",
      "--tools",
      fixture("tools.mjs"),
      "--script",
      fixture("weather-script.json"),
      "--store",
      store(),
    ]);
    const client = new Client({ name: "agentloop-test", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(url)));
    try {
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toEqual(["weather"]);
      const result = await client.callTool({ name: "weather", arguments: { task: "How hot is Pune in Fahrenheit?" } });
      expect((result.content as { text: string }[])[0]?.text).toBe("It is 86 F in Pune.");
    } finally {
      await client.close();
    }
  });

  it("--mcp: a client that asks for a task follows it through input_required and approves through the task", async () => {
    const url = await serve([
      "--mcp",
      "--port",
      "0",
      "--tools",
      fixture("tools.mjs"),
      "--script",
      fixture("approval-full.json"),
      "--store",
      store(),
    ]);
    // The MCP SDK 1.x client: the published client with a task runtime, on a 2025-era session.
    const client = new TaskClient({ name: "agentloop-test", version: "1.0.0" }, { capabilities: { elicitation: {} } });
    const asked: string[] = [];
    client.setRequestHandler(ElicitRequestSchema, (request) => {
      asked.push(request.params.message);
      return { action: "accept", content: { approved: true } };
    });
    await client.connect(new TaskTransport(new URL(url)));
    try {
      const seen: string[] = [];
      let answer = "";
      for await (const message of client.experimental.tasks.callToolStream(
        { name: "agent", arguments: { task: "Report Delhi's weather.", runId: "delhi" } },
        CallToolResultSchema,
        { task: { ttl: 60_000 } },
      )) {
        if (message.type === "taskCreated") seen.push(`created ${message.task.taskId}`);
        if (message.type === "taskStatus") seen.push(message.task.status);
        if (message.type === "result") answer = (message.result.content as { text: string }[])[0]?.text ?? "";
        if (message.type === "error") throw message.error;
      }
      expect(seen[0]).toBe("created delhi");
      expect(seen.at(-1)).toBe("input_required");
      expect(asked).toHaveLength(1);
      expect(answer).toBe("It is 35 C in Delhi; the report went out.");
      expect((await client.experimental.tasks.getTask("delhi")).status).toBe("completed");
    } finally {
      await client.close();
    }
  });

  it("refuses a command line without exactly one protocol", async () => {
    await expect(
      serve(["--ag-ui", "--mcp", "--script", fixture("weather-script.json"), "--tools", fixture("tools.mjs")]),
    ).rejects.toThrow("give one of --ui-stream, --ag-ui or --mcp");
  });

  it("--ui-stream: a chat's message is answered as the UI message stream useChat reads", async () => {
    const url = await serve([
      "--ui-stream",
      "--port",
      "0",
      "--script",
      fixture("weather-script.json"),
      "--tools",
      fixture("tools.mjs"),
      "--store",
      store(),
    ]);
    const message = { id: "u1", role: "user", parts: [{ type: "text", text: "How hot is Pune in Fahrenheit?" }] };
    const response = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ id: "pune", messages: [message], trigger: "submit-message" }),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("x-vercel-ai-ui-message-stream")).toBe("v1");
    const chunks = sseEvents(await response.text());
    expect(chunks[0]).toMatchObject({ type: "start" });
    expect(chunks.filter((chunk) => chunk.type === "tool-input-available").map((chunk) => chunk.toolName)).toEqual([
      "get_weather",
      "get_weather",
      "c_to_f",
    ]);
    // Atlantis is no city: the tool's error is a part of its own, and the run goes on.
    expect(chunks.filter((chunk) => chunk.type === "tool-output-error")).toHaveLength(1);
    const text = chunks
      .filter((chunk) => chunk.type === "text-delta")
      .map((chunk) => chunk.delta)
      .join("");
    expect(text).toBe("I will look up Pune first.It is 86 F in Pune.");
    expect(chunks.at(-1)).toMatchObject({ type: "finish", messageMetadata: { runId: "pune", status: "done" } });
  });
});
