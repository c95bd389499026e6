import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { Client as TaskClient } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as TaskTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CallToolResultSchema, ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { fixture } from "../cli.js";
import { serve } from "../serving.js";

function sseEvents(text: string): { type: string; [key: string]: unknown }[] {
  return text
    .split("\n\n")
    .filter((frame) => frame.startsWith("data: ") && frame !== "data: [DONE]")
    .map((frame) => JSON.parse(frame.slice(6)) as { type: string });
}

const store = () => mkdtempSync(join(tmpdir(), "agentloop-serve-"));

/** Posts a chat's first message to a `--ui-stream` server's API and reads the stream's chunks. */
async function chat(url: string, id: string, text: string): Promise<{ type: string; [key: string]: unknown }[]> {
  const message = { id: `${id}-u1`, role: "user", parts: [{ type: "text", text }] };
  const response = await fetch(new URL("/api/chat", url), {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ id, messages: [message], trigger: "submit-message" }),
  });
  expect(response.status).toBe(200);
  return sseEvents(await response.text());
}

const answerOf = (chunks: { type: string; [key: string]: unknown }[]) =>
  chunks
    .filter((chunk) => chunk.type === "text-delta")
    .map((chunk) => chunk.delta)
    .join("");

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
    ).rejects.toThrow("give one of --ui-stream, --ag-ui, --mcp or --a2a");
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
    const response = await fetch(new URL("/api/chat", url), {
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

  it("--ui-stream --script: each conversation replays the script from its start", async () => {
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
    const pune = await chat(url, "pune", "How hot is Pune in Fahrenheit?");
    const again = await chat(url, "pune-again", "How hot is Pune in Fahrenheit?");
    expect(answerOf(pune)).toBe("I will look up Pune first.It is 86 F in Pune.");
    expect(answerOf(again)).toBe("I will look up Pune first.It is 86 F in Pune.");
    expect(again.at(-1)).toMatchObject({ type: "finish", messageMetadata: { runId: "pune-again", status: "done" } });
  });

  it("--ui-stream: another site's page is refused 403 unless --allow-origin names it", async () => {
    const args = [
      "--ui-stream",
      "--port",
      "0",
      "--script",
      fixture("weather-script.json"),
      "--tools",
      fixture("tools.mjs"),
    ];
    const post = (url: string, origin: string) =>
      fetch(new URL("/api/chat", url), {
        method: "POST",
        headers: { "content-type": "text/plain", origin },
        body: JSON.stringify({
          id: `from-${origin.length}`,
          messages: [{ id: "u1", role: "user", parts: [{ type: "text", text: "How hot is Pune?" }] }],
        }),
      });
    const closed = await serve([...args, "--store", store()]);
    expect((await post(closed, "https://evil.example")).status).toBe(403);
    const open = await serve([...args, "--store", store(), "--allow-origin", "https://app.example"]);
    const allowed = await post(open, "https://app.example");
    expect(allowed.status).toBe(200);
    expect(allowed.headers.get("access-control-allow-origin")).toBe("https://app.example");
    await allowed.text();
    expect((await post(open, "https://evil.example")).status).toBe(403);
  });

  it("--ui-stream: a turn has run's limits (50 steps), not runAgent's 8; --max-steps, --token-budget and --system are run's", async () => {
    // Nine lookups, then the answer: ten model calls in one turn.
    const lookups = Array.from({ length: 9 }, (_, i) => ({
      content: "",
      toolCalls: [{ id: `c${i}`, name: "get_weather", args: { city: "Pune" } }],
    }));
    const script = join(store(), "ten-steps.json");
    writeFileSync(script, JSON.stringify([...lookups, { content: "It is 30 C in Pune.", toolCalls: [] }]));
    const tools = fixture("tools.mjs");
    const roomy = await serve(["--ui-stream", "--port", "0", "--script", script, "--tools", tools, "--store", store()]);
    const done = await chat(roomy, "ten", "How hot is Pune?");
    expect(done.at(-1)).toMatchObject({ type: "finish", messageMetadata: { status: "done" } });
    expect(answerOf(done)).toBe("It is 30 C in Pune.");

    const dir = store();
    const capped = await serve([
      "--ui-stream",
      "--port",
      "0",
      "--script",
      script,
      "--tools",
      tools,
      "--store",
      dir,
      "--max-steps",
      "2",
      "--token-budget",
      "100000",
      "--system",
      "Answer in one line.",
    ]);
    const stopped = await chat(capped, "two", "How hot is Pune?");
    expect(stopped.at(-1)).toMatchObject({ type: "finish", messageMetadata: { status: "step_limit" } });
    const log = readFileSync(join(dir, "two.jsonl"), "utf8");
    expect(log).toContain('"maxSteps":2');
    expect(log).toContain('"tokenBudget":100000');
    expect(log).toContain("Answer in one line.");
  });

  it("--ui-stream --approve-tool: the approved tool's calls run without a pause; --deny-tool's are answered with the denial", async () => {
    const args = [
      "--ui-stream",
      "--port",
      "0",
      "--script",
      fixture("approval-full.json"),
      "--tools",
      fixture("tools.mjs"),
    ];
    const approving = await serve([...args, "--store", store(), "--approve-tool", "send_report"]);
    const approved = await chat(approving, "delhi", "Report Delhi's weather.");
    expect(approved.filter((chunk) => chunk.type === "tool-approval-request")).toEqual([]);
    expect(approved.find((chunk) => chunk.type === "tool-output-available" && chunk.toolCallId === "m1")).toMatchObject(
      {
        output: { sent: true, to: "ops@example.com" },
      },
    );
    expect(approved.at(-1)).toMatchObject({ type: "finish", messageMetadata: { status: "done" } });

    const denying = await serve([
      ...args,
      "--store",
      store(),
      "--deny-tool",
      "send_report",
      "--reason",
      "no mail today",
    ]);
    const denied = await chat(denying, "delhi", "Report Delhi's weather.");
    expect(denied.filter((chunk) => chunk.type === "tool-approval-request")).toEqual([]);
    expect(denied.find((chunk) => chunk.type === "tool-output-error" && chunk.toolCallId === "m1")).toMatchObject({
      errorText: expect.stringContaining("every call to send_report is denied on this server (no mail today)"),
    });

    await expect(serve([...args, "--store", store(), "--approve-tool", "get_weather"])).rejects.toThrow(
      "tool 'get_weather' does not need approval (those that do: send_report)",
    );
  });

  it("--ui-stream: a bad run option is a usage error, before anything listens", async () => {
    const args = [
      "--ui-stream",
      "--port",
      "0",
      "--script",
      fixture("weather-script.json"),
      "--tools",
      fixture("tools.mjs"),
    ];
    await expect(serve([...args, "--max-steps", "many"])).rejects.toThrow("--max-steps must be a whole number");
    await expect(serve([...args, "--cost-budget", "1"])).rejects.toThrow("--cost-budget needs --pricing");
  });

  it("--ui-stream: serves the built chat page at /, its assets, and the API beside it", async () => {
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
    const page = await fetch(url);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toBe("text/html; charset=utf-8");
    const html = await page.text();
    const script = /<script type="module" crossorigin src="(\/assets\/[^"]+\.js)"/.exec(html)?.[1];
    expect(script).toBeDefined();
    const asset = await fetch(new URL(script as string, url));
    expect(asset.status).toBe(200);
    expect(asset.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    expect(await asset.text()).toContain("/api/chat");
    expect((await fetch(new URL("/assets/..%2F..%2Fpackage.json", url))).status).toBe(404);
    const messages = await fetch(new URL("/api/chat/none-yet/messages", url));
    expect(await messages.json()).toEqual([]);
  });
});
