import { chatHandler, loadChat } from "@agentloop/ai-sdk";
import { MemoryEventStore, ToolRegistry } from "@agentloop/core";
import { final, scriptedModel } from "@agentloop/core/testing";
import type { FileUIPart, UIMessage } from "ai";
import { afterEach, describe, expect, it } from "vitest";
import { listen, NodeChat } from "./chat-server.js";

// What `useChat`'s `sendMessage({ files })` sends reaches the model as content parts, or is refused.

const servers: { close: () => Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function serve(handler: (request: Request) => Promise<Response>): Promise<string> {
  const server = await listen(handler);
  servers.push(server);
  return server.url;
}

const PNG_BASE64 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";
const image: FileUIPart = { type: "file", mediaType: "image/png", url: `data:image/png;base64,${PNG_BASE64}` };
const pdf: FileUIPart = {
  type: "file",
  mediaType: "application/pdf",
  filename: "report.pdf",
  url: "https://files.example.com/report.pdf",
};

/** What a page shows of messages: roles and parts, without the ids a page makes up itself. */
function shown(messages: readonly UIMessage[]): unknown[] {
  return messages.map((message) => ({ role: message.role, parts: message.parts }));
}

describe("chatHandler takes a user message's files", () => {
  it("an image and a file sent with sendMessage({ files }) reach the model as content parts, on the first turn and the next; loadChat shows them again", async () => {
    const store = new MemoryEventStore();
    const model = scriptedModel([final("A red dot."), final("A report.")]);
    const chat = new NodeChat("files-a", await serve(chatHandler({ model, registry: new ToolRegistry(), store })));
    await chat.sendMessage({ text: "What is in this picture?", files: [image] });
    await chat.sendMessage({ text: "And in this file?", files: [pdf] });
    expect(chat.status).toBe("ready");

    expect(model.seen[0]?.at(-1)).toEqual({
      role: "user",
      content: [
        { type: "image", mediaType: "image/png", data: PNG_BASE64 },
        { type: "text", text: "What is in this picture?" },
      ],
    });
    expect(model.seen[1]?.at(-1)).toEqual({
      role: "user",
      content: [
        { type: "file", mediaType: "application/pdf", data: pdf.url, filename: "report.pdf" },
        { type: "text", text: "And in this file?" },
      ],
    });
    const loaded = await loadChat({ store, chatId: "files-a" });
    expect(shown(loaded)).toEqual(shown(chat.messages));
  });

  it.each([
    [
      "a file part without a url",
      { type: "file", mediaType: "image/png" },
      "part 0 (file) needs `url` (a data: URL or a link) and `mediaType`",
    ],
    ["a file whose url is neither a URL nor data", { type: "file", mediaType: "image/png", url: "not a url" }, "url"],
    ["a part the agent cannot take", { type: "data-weather", data: { city: "Pune" } }, '"data-weather"'],
  ])("%s is refused 400, nothing logged", async (_label, part, message) => {
    const store = new MemoryEventStore();
    const url = await serve(chatHandler({ model: scriptedModel([]), registry: new ToolRegistry(), store }));
    const body = {
      id: "files-b",
      messages: [{ id: "u1", role: "user", parts: [part, { type: "text", text: "Look." }] }],
    };
    const response = await fetch(url, { method: "POST", body: JSON.stringify(body) });
    expect(response.status).toBe(400);
    expect(await response.text()).toContain(message);
    expect(await store.read("files-b")).toEqual([]);
  });

  it("a message of files only is taken: the files are the message", async () => {
    const store = new MemoryEventStore();
    const model = scriptedModel([final("A red dot.")]);
    const chat = new NodeChat("files-c", await serve(chatHandler({ model, registry: new ToolRegistry(), store })));
    await chat.sendMessage({ files: [image] });
    expect(chat.status).toBe("ready");
    expect(model.seen[0]?.at(-1)).toEqual({
      role: "user",
      content: [{ type: "image", mediaType: "image/png", data: PNG_BASE64 }],
    });
  });
});
