import { once } from "node:events";
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { cli, startCli } from "../cli.js";

describe("agentloop demo", () => {
  it("prints plain progress lines when stdout is not a terminal, then the trace", async () => {
    const { code, stdout, stderr } = await cli(["demo"]);
    expect(stderr).toBe("");
    expect(code).toBe(0);
    expect(stdout.includes("\r") || stdout.includes("\u001b[")).toBe(false);
    const lines = stdout.split("\n");
    expect(lines[0]).toBe("agentloop demo: the weather agent on a scripted model");
    expect(lines.filter((line) => line.startsWith("progress  "))).toEqual([
      "progress  callingModel · step 0 of 8 · tokens 0 of 4000",
      expect.stringMatching(/^progress {2}executingTools\.runningTools · step 1 of 8 · tokens \d+ of 4000$/),
      expect.stringMatching(/^progress {2}executingTools\.runningTools \(get_weather\) · step 1 of 8/),
      expect.stringMatching(/^progress {2}callingModel · step 1 of 8/),
      expect.stringMatching(/^progress {2}executingTools\.runningTools · step 2 of 8/),
      expect.stringMatching(/^progress {2}executingTools\.runningTools \(c_to_f\) · step 2 of 8/),
      expect.stringMatching(/^progress {2}callingModel · step 2 of 8/),
      expect.stringMatching(/^progress {2}done · step 3 of 8 · tokens \d+ of 4000$/),
    ]);
    expect(stdout).toContain("state     budgetCheck → callingModel");
    expect(stdout).toContain("→ budgetCheck [isLastResult] → callingModel");
    expect(stdout).toContain("user      How hot is Pune in Fahrenheit?");
    expect(stdout).toContain('assistant "I will look up Pune first."  →  get_weather({"city":"Pune"}) [c1]');
    expect(stdout).toContain("tool      [c2] c_to_f = 86");
    expect(stdout).toMatch(/^result {3}done · steps 3 · tokens \d+ · messages 7$/m);
    expect(stdout).toContain("answer   It is 86 F in Pune.");
    expect(stdout).toContain("tools run get_weather(Pune), c_to_f(30)");
  });

  it("runs on a real adapter with --model, over HTTP to an OpenAI-compatible server", async () => {
    const bodies: unknown[] = [];
    const replies = [
      {
        tool_calls: [
          { id: "call_1", type: "function", function: { name: "get_weather", arguments: '{"city":"Pune"}' } },
        ],
      },
      { tool_calls: [{ id: "call_2", type: "function", function: { name: "c_to_f", arguments: '{"celsius":30}' } }] },
      { content: "It is 86 °F in Pune." },
    ];
    const server = createServer((request: IncomingMessage, response) => {
      let text = "";
      request.on("data", (chunk: Buffer) => {
        text += chunk.toString();
      });
      request.on("end", () => {
        bodies.push(JSON.parse(text));
        const reply = replies[bodies.length - 1] ?? { content: "out of script" };
        const message = { role: "assistant", content: null, ...reply };
        const finish = "tool_calls" in reply ? "tool_calls" : "stop";
        const usage = { prompt_tokens: 100, completion_tokens: 10, total_tokens: 110 };
        const head = { id: `chatcmpl-${bodies.length}`, created: 1_764_672_000, model: "fake-model" };
        const status = request.url === "/v1/chat/completions" ? 200 : 404;
        if ((JSON.parse(text) as { stream?: boolean }).stream === true) {
          // The demo prints the model's text as it streams, so the adapter asks for a stream: SSE,
          // as the real API sends it, the calls' arguments whole in one chunk, usage in the last.
          const delta = {
            role: "assistant",
            ...("content" in reply ? { content: reply.content } : {}),
            ...("tool_calls" in reply
              ? { tool_calls: (reply.tool_calls ?? []).map((call, index) => ({ index, ...call })) }
              : {}),
          };
          const chunk = (body: object) =>
            `data: ${JSON.stringify({ ...head, object: "chat.completion.chunk", ...body })}\n\n`;
          response.writeHead(status, { "content-type": "text/event-stream" });
          response.end(
            chunk({ choices: [{ index: 0, delta, finish_reason: null }] }) +
              chunk({ choices: [{ index: 0, delta: {}, finish_reason: finish }] }) +
              chunk({ choices: [], usage }) +
              "data: [DONE]\n\n",
          );
          return;
        }
        response.writeHead(status, { "content-type": "application/json" });
        response.end(
          JSON.stringify({
            ...head,
            object: "chat.completion",
            choices: [{ index: 0, message, finish_reason: finish, logprobs: null }],
            usage,
          }),
        );
      });
    });
    server.listen(0, "127.0.0.1");
    await once(server, "listening");
    const { port } = server.address() as AddressInfo;
    try {
      const env = { OPENAI_API_KEY: "test-key", OPENAI_BASE_URL: `http://127.0.0.1:${port}/v1` };
      const { code, stdout, stderr } = await cli(["demo", "--model", "openai:fake-model"], { env });
      expect(stderr).toBe("");
      expect(code).toBe(0);
      expect(stdout).toContain("agentloop demo: the weather agent on openai:fake-model");
      expect(stdout).toContain("usage 100 in / 10 out");
      expect(stdout).toMatch(/^result {3}done · steps 3 · tokens 330 · messages 7$/m);
      expect(stdout).toContain("answer   It is 86 °F in Pune.");
      expect(bodies).toHaveLength(3);
      expect(bodies[0]).toMatchObject({
        model: "fake-model",
        messages: [{ role: "system" }, { role: "user", content: "How hot is Pune in Fahrenheit?" }],
      });
    } finally {
      server.close();
    }
  });

  it("cancels the run on Ctrl-C: the trace ends in cancelled, the exit code is 130", async () => {
    const child = startCli(["demo", "--delay", "5000"]);
    let stdout = "";
    let interrupted = false;
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
      if (interrupted || !stdout.includes("progress  callingModel")) return;
      interrupted = true;
      child.kill("SIGINT");
    });
    const [code] = (await once(child, "close")) as [number | null];
    expect(code).toBe(130);
    expect(stdout).toMatch(/#1 +run\.cancelled +interrupted with Ctrl-C/);
    expect(stdout).toContain("state     → cancelled");
    expect(stdout).toContain("result   cancelled · steps 0");
  });
});
