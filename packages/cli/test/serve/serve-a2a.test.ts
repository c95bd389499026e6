import { mkdtempSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { GetTaskRequest, Message, SendMessageRequest, type Task, TaskState } from "@a2a-js/sdk";
import { ClientFactory } from "@a2a-js/sdk/client";
import { describe, expect, it } from "vitest";
import { fixture } from "../cli.js";
import { serve } from "../serving.js";

const store = () => mkdtempSync(join(tmpdir(), "agentloop-serve-a2a-"));

function userText(text: string, taskId?: string): SendMessageRequest {
  const message = Message.fromJSON({
    messageId: globalThis.crypto.randomUUID(),
    role: "ROLE_USER",
    parts: [{ text }],
    ...(taskId === undefined ? {} : { taskId }),
  });
  return SendMessageRequest.fromJSON({ message: Message.toJSON(message) });
}

describe("agentloop serve --a2a", () => {
  it("serves the card at the bound address; an approval is input-required, and a yes on the task takes it to the answer", async () => {
    const url = await serve([
      "--a2a",
      "--port",
      "0",
      "--name",
      "weather",
      "--description",
      "Reports the weather.",
      "--tools",
      fixture("tools.mjs"),
      "--script",
      fixture("approval-full.json"),
      "--store",
      store(),
    ]);
    const client = await new ClientFactory().createFromUrl(url);
    const card = await client.getAgentCard();
    expect(card.name).toBe("weather");
    expect(card.description).toBe("Reports the weather.");
    expect(card.supportedInterfaces[0]?.url).toBe(url);
    const paused = (await client.sendMessage(userText("Report Delhi's weather."))) as Task;
    expect(paused.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const asked = paused.status?.message?.parts[0]?.content;
    expect(asked).toEqual({
      $case: "text",
      value: 'Approve send_report with {"to":"ops@example.com"}? Answer yes or no.',
    });
    const done = (await client.sendMessage(userText("yes", paused.id))) as Task;
    expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(done.artifacts[0]?.parts[0]?.content).toEqual({
      $case: "text",
      value: "It is 35 C in Delhi; the report went out.",
    });
    const read = await client.getTask(GetTaskRequest.fromJSON({ id: paused.id }));
    expect(read.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
  });

  it("--card-url names the URL clients are told to call", async () => {
    const url = await serve([
      "--a2a",
      "--port",
      "0",
      "--card-url",
      "https://agent.example.com/a2a",
      "--tools",
      fixture("tools.mjs"),
      "--script",
      fixture("approval-full.json"),
      "--store",
      store(),
    ]);
    const card = (await (await fetch(new URL("/.well-known/agent-card.json", url))).json()) as {
      supportedInterfaces: { url: string }[];
    };
    expect(card.supportedInterfaces[0]?.url).toBe("https://agent.example.com/a2a");
    // A proxy that keeps the Host: the server answers to the card's host, and to no other.
    const status = (host: string) =>
      new Promise<number>((resolve, reject) => {
        const req = httpRequest(new URL("/.well-known/agent-card.json", url), { headers: { host } }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        });
        req.on("error", reject);
        req.end();
      });
    expect(await status("agent.example.com")).toBe(200);
    expect(await status("evil.example")).toBe(403);
  });

  it("refuses --card-url without --a2a", async () => {
    await expect(serve(["--ag-ui", "--card-url", "https://agent.example.com/", "--store", store()])).rejects.toThrow(
      "--card-url goes with --a2a only",
    );
  });
});
