import {
  asks,
  type ContentPart,
  contentParts,
  final,
  ModelError,
  runAgent,
  ToolRegistry,
  tool,
  toolCall,
} from "@agentloop/core";
import type { RecordedRequest } from "@agentloop/provider-testkit";
import { afterEach, describe, expect, it } from "vitest";
import { OpenAIRequestError, openaiModel } from "../src/index.js";
import { completionOf, type FakeOpenAI, MODEL, startFakeOpenAI } from "./fake-openai.js";

let server: FakeOpenAI | undefined;

afterEach(async () => {
  const violations = server?.violations ?? [];
  await server?.close();
  server = undefined;
  expect(violations, "requests that break the Chat Completions wire format").toEqual([]);
});

const messagesOf = (request: RecordedRequest | undefined) =>
  ((request as RecordedRequest).body as { messages: Record<string, unknown>[] }).messages;
const PNG = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 1, 2, 3]);
const PNG64 = Buffer.from(PNG).toString("base64");

describe("openaiModel sends content parts in Chat Completions' form", () => {
  it("a task's image by bytes as a data: URL, by URL as it is, a PDF as file_data with its filename", async () => {
    server = await startFakeOpenAI([completionOf(final("A chart and a cat."))]);
    const model = openaiModel({ client: server.client(), model: MODEL });
    const task: ContentPart[] = [
      { type: "text", text: "Describe these." },
      { type: "image", mediaType: "image/png", data: PNG },
      { type: "image", mediaType: "image/jpeg", data: new URL("https://example.com/cat.jpg") },
      { type: "file", mediaType: "application/pdf", data: PNG64, filename: "report.pdf" },
    ];
    const result = await runAgent(task, model, new ToolRegistry());
    expect(result.answer).toBe("A chart and a cat.");
    expect(messagesOf(server.requests[0])[1]).toEqual({
      role: "user",
      content: [
        { type: "text", text: "Describe these." },
        { type: "image_url", image_url: { url: `data:image/png;base64,${PNG64}` } },
        { type: "image_url", image_url: { url: "https://example.com/cat.jpg" } },
        { type: "file", file: { file_data: `data:application/pdf;base64,${PNG64}`, filename: "report.pdf" } },
      ],
    });
  });

  it("a tool's image follows the tool messages in one user message; the tool message keeps the text", async () => {
    server = await startFakeOpenAI([
      completionOf(asks(toolCall("c1", "screenshot"), toolCall("c2", "screenshot"))),
      completionOf(final("Two screens.")),
    ]);
    const registry = new ToolRegistry([
      tool({
        name: "screenshot",
        description: "Takes a screenshot.",
        parameters: { type: "object", properties: {} },
        execute: () =>
          contentParts([
            { type: "text", text: "screen" },
            { type: "image", mediaType: "image/png", data: PNG },
          ]),
      }),
    ]);
    const model = openaiModel({ client: server.client(), model: MODEL });
    await runAgent("Look twice.", model, registry);
    const sent = messagesOf(server.requests[1]);
    expect(sent.slice(3)).toEqual([
      { role: "tool", tool_call_id: "c1", content: [{ type: "text", text: "screen\n[image image/png]" }] },
      { role: "tool", tool_call_id: "c2", content: [{ type: "text", text: "screen\n[image image/png]" }] },
      {
        role: "user",
        content: [
          { type: "text", text: "The result of call c1:" },
          { type: "image_url", image_url: { url: `data:image/png;base64,${PNG64}` } },
          { type: "text", text: "The result of call c2:" },
          { type: "image_url", image_url: { url: `data:image/png;base64,${PNG64}` } },
        ],
      },
    ]);
  });

  it("refuses a file by URL before anything is sent, in one line", async () => {
    server = await startFakeOpenAI([]);
    const model = openaiModel({ client: server.client(), model: MODEL });
    const task: ContentPart[] = [
      { type: "file", mediaType: "application/pdf", data: new URL("https://example.com/a.pdf") },
    ];
    const error = await runAgent(task, model, new ToolRegistry()).catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(ModelError);
    expect((error as ModelError).cause).toBeInstanceOf(OpenAIRequestError);
    expect(((error as ModelError).cause as Error).message).toBe(
      "Chat Completions takes a file as its data, not a URL (https://example.com/a.pdf): give the file's bytes",
    );
    expect((error as Error).message).not.toContain("\n");
    expect(server.requests).toEqual([]);
  });
});
