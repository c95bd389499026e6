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
import { AnthropicRequestError, anthropicModel } from "../src/index.js";
import { type FakeAnthropic, MODEL, messageOf, startFakeAnthropic } from "./fake-anthropic.js";

let server: FakeAnthropic | undefined;

afterEach(async () => {
  const violations = server?.violations ?? [];
  await server?.close();
  server = undefined;
  expect(violations, "requests that break the Messages API wire format").toEqual([]);
});

const turnsOf = (request: RecordedRequest | undefined) =>
  ((request as RecordedRequest).body as { messages: { role: string; content: unknown }[] }).messages;
/** Blocks without the prompt-cache marks, which other tests hold the adapter to. */
const unmarked = (value: unknown): unknown =>
  JSON.parse(JSON.stringify(value, (key, item: unknown) => (key === "cache_control" ? undefined : item)));
const PNG = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 1, 2, 3]);
const PNG64 = Buffer.from(PNG).toString("base64");

describe("anthropicModel sends content parts as image and document blocks", () => {
  it("a task's image by bytes and by URL, a PDF and a text file as documents titled by their filenames", async () => {
    server = await startFakeAnthropic([messageOf(final("A chart and a cat."))]);
    const model = anthropicModel({ client: server.client(), model: MODEL, maxTokens: 256 });
    const task: ContentPart[] = [
      { type: "text", text: "Describe these." },
      { type: "image", mediaType: "image/png", data: PNG },
      { type: "image", mediaType: "image/jpeg", data: new URL("https://example.com/cat.jpg") },
      { type: "file", mediaType: "application/pdf", data: PNG64, filename: "report.pdf" },
      { type: "file", mediaType: "text/plain", data: new TextEncoder().encode("notes"), filename: "notes.txt" },
      { type: "file", mediaType: "application/pdf", data: new URL("https://example.com/a.pdf") },
    ];
    // Each image of unknown size and the PDF by URL count 1,600 tokens: more than the default budget.
    const result = await runAgent(task, model, new ToolRegistry(), { tokenBudget: 10_000 });
    expect(result.answer).toBe("A chart and a cat.");
    expect(unmarked(turnsOf(server.requests[0])[0])).toEqual({
      role: "user",
      content: [
        { type: "text", text: "Describe these." },
        { type: "image", source: { type: "base64", media_type: "image/png", data: PNG64 } },
        { type: "image", source: { type: "url", url: "https://example.com/cat.jpg" } },
        {
          type: "document",
          source: { type: "base64", media_type: "application/pdf", data: PNG64 },
          title: "report.pdf",
        },
        { type: "document", source: { type: "text", media_type: "text/plain", data: "notes" }, title: "notes.txt" },
        { type: "document", source: { type: "url", url: "https://example.com/a.pdf" } },
      ],
    });
  });

  it("a tool's image goes inside its tool_result block", async () => {
    server = await startFakeAnthropic([messageOf(asks(toolCall("c1", "screenshot"))), messageOf(final("A screen."))]);
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
    const model = anthropicModel({ client: server.client(), model: MODEL, maxTokens: 256 });
    await runAgent("Look.", model, registry);
    expect(unmarked(turnsOf(server.requests[1])[2])).toEqual({
      role: "user",
      content: [
        {
          type: "tool_result",
          tool_use_id: "c1",
          content: [
            { type: "text", text: "screen" },
            { type: "image", source: { type: "base64", media_type: "image/png", data: PNG64 } },
          ],
        },
      ],
    });
  });

  it("refuses an image type or a file type the API does not take, before anything is sent, in one line", async () => {
    server = await startFakeAnthropic([]);
    const model = anthropicModel({ client: server.client(), model: MODEL, maxTokens: 256 });
    const refused = (task: ContentPart[]) =>
      runAgent(task, model, new ToolRegistry()).then(
        () => null,
        (error: unknown) => error,
      );
    const bmp = await refused([{ type: "image", mediaType: "image/bmp", data: PNG }]);
    expect(bmp).toBeInstanceOf(ModelError);
    expect((bmp as ModelError).cause).toBeInstanceOf(AnthropicRequestError);
    expect(((bmp as ModelError).cause as Error).message).toBe(
      "Anthropic takes images of image/jpeg, image/png, image/gif, image/webp; got image/bmp",
    );
    expect((bmp as Error).message).not.toContain("\n");
    const zip = await refused([{ type: "file", mediaType: "application/zip", data: PNG }]);
    expect(((zip as ModelError).cause as Error).message).toBe(
      "Anthropic takes files as PDF (by data or URL) or plain text (by data); got application/zip",
    );
    expect(server.requests).toEqual([]);
  });
});
