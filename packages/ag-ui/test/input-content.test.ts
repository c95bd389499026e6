import { final, MemoryEventStore, scriptedModel, ToolRegistry } from "@agentloop/core";
import { describe, expect, it } from "vitest";
import { agUiHandler } from "../src/index.js";
import { input, post, readEvents } from "./fixture.js";

// A user message's images and documents reach the model as content parts, or the input is refused.

const PNG_BASE64 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";

function withContent(threadId: string, content: unknown): Record<string, unknown> {
  return { ...input(threadId, "r1", "unused"), messages: [{ id: "u1", role: "user", content }] };
}

describe("agUiHandler takes a user message's content parts", () => {
  it("an image and a document reach the model as image and file parts, beside the text, in order", async () => {
    const model = scriptedModel([final("A red dot and a report.")]);
    const handler = agUiHandler({ model, registry: new ToolRegistry(), store: new MemoryEventStore() });
    const content = [
      { type: "text", text: "What are these?" },
      { type: "image", source: { type: "data", value: PNG_BASE64, mimeType: "image/png" } },
      {
        type: "document",
        source: { type: "url", value: "https://files.example.com/report.pdf", mimeType: "application/pdf" },
      },
    ];
    const events = await readEvents(await handler(post(withContent("t1", content))));
    expect(events.at(-1)).toMatchObject({ type: "RUN_FINISHED", result: { answer: "A red dot and a report." } });
    expect(model.seen[0]?.at(-1)).toEqual({
      role: "user",
      content: [
        { type: "text", text: "What are these?" },
        { type: "image", mediaType: "image/png", data: PNG_BASE64 },
        { type: "file", mediaType: "application/pdf", data: "https://files.example.com/report.pdf" },
      ],
    });
  });

  it.each([
    [
      "a provider's file id",
      { type: "image", source: { type: "file", value: "file-123", mimeType: "image/png" } },
      "part 1 (image) is a provider's file 'file-123'",
    ],
    [
      "a link without a media type",
      { type: "document", source: { type: "url", value: "https://files.example.com/x" } },
      "part 1 (document) needs the source's mimeType",
    ],
    [
      "data that is not base64",
      { type: "image", source: { type: "data", value: "%%%", mimeType: "image/png" } },
      "not base64",
    ],
  ])("%s is refused 400 before any event, nothing logged", async (_label, part, message) => {
    const store = new MemoryEventStore();
    const handler = agUiHandler({ model: scriptedModel([]), registry: new ToolRegistry(), store });
    const response = await handler(post(withContent("t2", [{ type: "text", text: "Look." }, part])));
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: string }).error).toContain(message);
    expect(await store.read("t2")).toEqual([]);
  });
});
