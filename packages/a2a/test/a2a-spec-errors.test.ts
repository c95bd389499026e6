import type { Task } from "@a2a-js/sdk";
import { MemoryEventStore, type Model } from "@agentloop/core";
import { asks, final, makeMailRegistry, toolCall } from "@agentloop/core/testing";
import { afterEach, describe, expect, it } from "vitest";
import { a2aHandler } from "../src/index.js";
import { clientOf, rawRequest, serveOnLoopback, userText } from "./a2a-served.js";

// Each test states what the A2A v1.0 specification requires (docs/specification.md and
// specification/a2a.proto of a2aproject/A2A at tag v1.0.0) of an answer the SDK's client cannot
// check for us: error codes, and what a list leaves out.

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

/** Answers "Email ..." by asking to send an email (needs approval), anything else with a final answer. */
const mailer: Model = (messages) => {
  const last = messages.at(-1);
  if (last?.role === "tool") return final("Sent.");
  if (String(last?.content).startsWith("Email")) return asks(toolCall("e1", "send_email", { to: "ana" }));
  return final("Hello.");
};

async function served() {
  const { registry } = makeMailRegistry({ needsApproval: true });
  const server = await serveOnLoopback((url) =>
    a2aHandler({
      model: mailer,
      registry,
      store: new MemoryEventStore(),
      card: { name: "mailer", description: "Emails people.", url },
    }),
  );
  closers.push(server.close);
  const host = new URL(server.url).host;
  /** A raw JSON-RPC POST with a v1.0 version header: its parsed answer. */
  const post = async (body: string) => {
    const answer = await rawRequest(
      `${server.url}/`,
      "POST",
      { host, "content-type": "application/json", "a2a-version": "1.0" },
      body,
    );
    return JSON.parse(answer.text) as {
      result?: { tasks: (Task & { artifacts?: unknown[] })[] };
      error?: { code: number; message: string };
    };
  };
  const rpc = (method: string, params: unknown) => post(JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }));
  return { ...server, post, rpc, client: await clientOf(server.url) };
}

describe("a2aHandler against the A2A v1.0 spec", () => {
  // §3.3.4 Capability Validation: "If AgentCard.capabilities.extendedAgentCard is false or not
  // present, attempts to call the Get Extended Agent Card operation MUST return UnsupportedOperationError."
  it("GetExtendedAgentCard is UnsupportedOperationError (-32004) when the card does not declare extendedAgentCard", async () => {
    const { client, rpc } = await served();
    expect((await client.getAgentCard()).capabilities?.extendedAgentCard).toBeFalsy();
    const answer = await rpc("GetExtendedAgentCard", {});
    expect(answer.result).toBeUndefined();
    expect(answer.error?.code).toBe(-32004);
  });

  it("ListTasks statusTimestampAfter keeps a task whose status timestamp equals it", async () => {
    const { client, rpc } = await served();
    const task = (await client.sendMessage(userText("Hi."))) as Task;
    const at = task.status?.timestamp as string;
    const answer = await rpc("ListTasks", { statusTimestampAfter: at });
    expect(answer.result?.tasks.map((each: Task) => each.id)).toEqual([task.id]);
  });

  it("ListTasks statusTimestampAfter compares instants, not strings (a whole-second timestamp before the task)", async () => {
    const { client, rpc } = await served();
    const task = (await client.sendMessage(userText("Hi."))) as Task;
    const at = task.status?.timestamp as string; // e.g. 2026-12-07T21:55:15.411Z
    const second = `${at.slice(0, 19)}Z`; // 2026-12-07T21:55:15Z: not after the task's update
    expect(Date.parse(second)).toBeLessThanOrEqual(Date.parse(at));
    const answer = await rpc("ListTasks", { statusTimestampAfter: second });
    expect(answer.result?.tasks.map((each: Task) => each.id)).toEqual([task.id]);
  });

  it("ListTasks refuses a statusTimestampAfter that is no time, as a malformed request", async () => {
    const { rpc } = await served();
    const answer = await rpc("ListTasks", { statusTimestampAfter: "yesterday" });
    expect(answer.error?.code).toBe(-32602);
    expect(answer.error?.message).toMatch(/statusTimestampAfter must be an ISO 8601 timestamp/);
  });

  // §3.1.4: "When includeArtifacts is false (the default), the artifacts field MUST be omitted
  // entirely from each Task object in the response."
  it("ListTasks omits artifacts unless includeArtifacts is true", async () => {
    const { client, rpc } = await served();
    const task = (await client.sendMessage(userText("Hi."))) as Task;
    expect(task.artifacts).toHaveLength(1);
    const answer = await rpc("ListTasks", {});
    expect(answer.result?.tasks).toHaveLength(1);
    expect(answer.result?.tasks[0]).not.toHaveProperty("artifacts");
    const withArtifacts = await rpc("ListTasks", { includeArtifacts: true });
    expect(withArtifacts.result?.tasks[0]?.artifacts).toHaveLength(1);
  });

  // §9.5 Error Handling (JSON-RPC 2.0 §5.1): -32700 JSONParseError "The server received invalid
  // JSON"; -32600 InvalidRequestError "The JSON sent is not a valid Request object".
  it("answers a body that is not JSON with -32700 and a JSON value that is not a Request with -32600", async () => {
    const { post } = await served();
    expect((await post("{not json")).error?.code).toBe(-32700);
    expect((await post(JSON.stringify({ jsonrpc: "2.0", id: 1, params: {} }))).error?.code).toBe(-32600);
    expect(
      (await post(JSON.stringify({ jsonrpc: "1.0", id: 1, method: "GetTask", params: { id: "x.1" } }))).error?.code,
    ).toBe(-32600);
    const batch = await post(JSON.stringify([{ jsonrpc: "2.0", id: 1, method: "GetTask", params: { id: "x.1" } }]));
    expect(batch.error?.code).toBe(-32600);
    // A request that is well formed still reaches its method.
    expect(
      (await post(JSON.stringify({ jsonrpc: "2.0", id: 7, method: "GetTask", params: { id: "x.1" } }))).error?.code,
    ).toBe(-32001);
  });

  // §3.1.1 Send Message, Errors: "ContentTypeNotSupportedError: A Media Type provided in the
  // request's message parts is not supported by the agent." (§5.4: JSON-RPC -32005.)
  it("refuses a part of a media type the agent does not take with ContentTypeNotSupportedError (-32005)", async () => {
    const { rpc } = await served();
    const message = {
      messageId: "m1",
      role: "ROLE_USER",
      parts: [{ url: "https://example.com/a.pdf", mediaType: "application/pdf" }],
    };
    expect((await rpc("SendMessage", { message })).error?.code).toBe(-32005);
  });
});
