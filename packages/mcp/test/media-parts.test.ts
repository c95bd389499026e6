import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import {
  asks,
  final,
  MemoryEventStore,
  replayRun,
  runAgent,
  scriptedModel,
  ToolRegistry,
  toolCall,
} from "@agentloop/core";
import { McpServer } from "@modelcontextprotocol/server";
import { afterEach, describe, expect, it } from "vitest";
import { mcpTools } from "../src/index.js";
import { connectTo } from "./connect.js";

const PNG = Buffer.from("89504e470d0a1a0a0000000d49484452000000100000000808060000", "hex").toString("base64");
const PDF = Buffer.from("%PDF-1.7 a tiny report").toString("base64");

/** A server whose tools answer with an image, an embedded resource with a blob, and one with text. */
function mediaServer(): McpServer {
  const server = new McpServer({ name: "media", version: "1.0.0" });
  const readOnly = { annotations: { readOnlyHint: true } };
  server.registerTool("screenshot", { description: "A screenshot.", ...readOnly }, async () => ({
    content: [
      { type: "text", text: "the screen" },
      { type: "image", data: PNG, mimeType: "image/png" },
    ],
  }));
  server.registerTool("report", { description: "The report.", ...readOnly }, async () => ({
    content: [
      { type: "resource", resource: { uri: "file:///reports/q3.pdf", mimeType: "application/pdf", blob: PDF } },
      { type: "resource", resource: { uri: "file:///reports/q3.txt", text: "Q3 was good." } },
      { type: "audio", data: "AAAA", mimeType: "audio/wav" },
    ],
  }));
  return server;
}

let open: Awaited<ReturnType<typeof connectTo>> | undefined;
afterEach(async () => {
  await open?.close();
  open = undefined;
});

describe("an MCP tool's image and embedded resources become content parts", () => {
  it("an image is an image part and a blob a file part named by its URI; text and the rest stay text", async () => {
    open = await connectTo(mediaServer());
    const registry = new ToolRegistry(await mcpTools(open.client));
    await expect(registry.execute("screenshot", {})).resolves.toEqual([
      { type: "text", text: "the screen" },
      { type: "image", mediaType: "image/png", data: PNG },
    ]);
    await expect(registry.execute("report", {})).resolves.toEqual([
      { type: "file", mediaType: "application/pdf", data: PDF, filename: "q3.pdf" },
      { type: "text", text: "Q3 was good." },
      { type: "text", text: "[audio audio/wav, 3 bytes]" },
    ]);
  });

  it("the model is shown the parts in the tool message, and the run's log replays to them", async () => {
    open = await connectTo(mediaServer());
    const registry = new ToolRegistry(await mcpTools(open.client));
    const model = scriptedModel([asks(toolCall("c1", "screenshot")), final("A screen.")]);
    const store = new MemoryEventStore();
    const result = await runAgent("Look.", model, registry, { store, runId: "mcp-media", tokenBudget: 20_000 });
    expect(model.seen[1]?.at(-1)).toEqual({
      role: "tool",
      toolCallId: "c1",
      name: "screenshot",
      content: [
        { type: "text", text: "the screen" },
        { type: "image", mediaType: "image/png", data: PNG },
      ],
    });
    const { runId: _runId, ...rest } = result;
    expect(replayRun(await store.read("mcp-media")).result).toEqual(rest);
  });

  it("the README's table of what a tool becomes says so: images and blobs become parts, not lines", () => {
    const readme = readFileSync(fileURLToPath(new URL("../README.md", import.meta.url)), "utf8");
    const row = readme.split("\n").find((line) => line.startsWith("| a result's `content`"));
    expect(row).toBeDefined();
    expect(row).toMatch(/image part/);
    expect(row).toMatch(/file part/);
    expect(row).not.toMatch(/images, audio and resources each described in a line/);
  });
});
