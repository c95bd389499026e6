import assert from "node:assert/strict";
import {
  asks,
  type ContentPart,
  contentParts,
  final,
  MAX_PART_BYTES,
  runAgent,
  scriptedModel,
  ToolRegistry,
  tool,
  toolCall,
} from "@agentloop/core";

// The first bytes of a 1000 × 1000 PNG: enough for the estimate to read its size.
const png = new Uint8Array(24);
png.set([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]);
new DataView(png.buffer).setUint32(16, 1000);
new DataView(png.buffer).setUint32(20, 1000);

// The task as parts: text, an image by its bytes, an image by URL (passed to the provider, never
// fetched here), and a PDF with its file name.
const task: ContentPart[] = [
  { type: "text", text: "What do the chart and the photo show?" },
  { type: "image", mediaType: "image/png", data: png },
  { type: "image", mediaType: "image/jpeg", data: new URL("https://example.com/photo.jpg") },
  { type: "file", mediaType: "application/pdf", data: "JVBERi0xLjc=", filename: "report.pdf" },
];

// A tool may answer with parts too: a screenshot, say.
const registry = new ToolRegistry([
  tool({
    name: "screenshot",
    description: "Takes a screenshot of the dashboard.",
    parameters: { type: "object", properties: {} },
    execute: () => contentParts([{ type: "image", mediaType: "image/png", data: png }]),
  }),
]);

const model = scriptedModel([asks(toolCall("s1", "screenshot")), final("Sales went up.")]);
const result = await runAgent(task, model, registry, { tokenBudget: 20_000 });
assert.equal(result.answer, "Sales went up.");
// The model is shown bytes as base64 and a URL as it is; the adapters send them in their
// provider's form (image_url and file parts for OpenAI, image and document blocks for Anthropic).
assert.deepEqual(model.seen[0]?.[1]?.content[2], {
  type: "image",
  mediaType: "image/jpeg",
  data: "https://example.com/photo.jpg",
});
assert.equal(result.messages[3]?.role, "tool");

// The budget check before each call counts an image by its size: this 1000 × 1000 PNG counts
// 1,334 tokens (Anthropic's formula, the larger of the two here), so a budget of 1,000 makes no call.
const tight = await runAgent([task[1] as ContentPart], scriptedModel([final("-")]), registry, { tokenBudget: 1000 });
assert.equal(tight.status, "token_budget");
assert.equal(tight.steps, 0);

// A part of an unknown type, or over the limit, is refused before the run starts, in one line.
await assert.rejects(runAgent([{ type: "audio" } as unknown as ContentPart], model, registry), {
  message: 'task, part 0 has the unknown type "audio": use text, image or file',
});
await assert.rejects(
  runAgent([{ type: "file", mediaType: "application/zip", data: new Uint8Array(MAX_PART_BYTES + 1) }], model, registry),
  { message: "task, part 0 (file) holds 52428801 bytes, over the limit of 52428800 bytes (50 MiB) per part" },
);
