import { ContentParts } from "@agentloop/core";
import { describe, expect, it } from "vitest";
import { McpToolError, resultValue } from "./tool-result.js";

describe("resultValue", () => {
  it("prefers structured content, then joins the content's text", () => {
    expect(resultValue({ content: [{ type: "text", text: "3" }], structuredContent: { sum: 3 } })).toEqual({ sum: 3 });
    expect(
      resultValue({
        content: [
          { type: "text", text: "a" },
          { type: "text", text: "b" },
        ],
      }),
    ).toBe("a\n\nb");
    expect(resultValue({ content: [] })).toBe("");
  });

  it("describes audio, links and resources in a line each", () => {
    const value = resultValue({
      content: [
        { type: "audio", data: "AAAA", mimeType: "audio/wav" },
        { type: "resource_link", uri: "file:///a.txt", name: "a.txt" },
        { type: "resource", resource: { uri: "file:///b.txt", text: "inside b" } },
      ],
    });
    expect(value).toBe("[audio audio/wav, 3 bytes]\n\n[resource file:///a.txt (a.txt)]\n\ninside b");
  });

  it("gives images and resources with a blob as parts, the other blocks as text parts", () => {
    const value = resultValue({
      content: [
        { type: "text", text: "files:" },
        { type: "resource", resource: { uri: "file:///c.bin", blob: "AAAA", mimeType: "application/octet-stream" } },
        { type: "resource", resource: { uri: "urn:x", blob: "AAAA" } },
        { type: "image", data: "AAAA", mimeType: "image/gif" },
        { type: "audio", data: "AAAA", mimeType: "audio/wav" },
      ],
    });
    expect(value).toBeInstanceOf(ContentParts);
    expect((value as ContentParts).parts).toEqual([
      { type: "text", text: "files:" },
      { type: "file", mediaType: "application/octet-stream", data: "AAAA", filename: "c.bin" },
      { type: "file", mediaType: "application/octet-stream", data: "AAAA", filename: "urn:x" },
      { type: "image", mediaType: "image/gif", data: "AAAA" },
      { type: "text", text: "[audio audio/wav, 3 bytes]" },
    ]);
  });

  it("describes media anywhere in structured content in a line, and keeps everything else as it is", () => {
    const structured = JSON.parse(
      '{"__proto__":{"x":1},"clips":[{"take":{"type":"audio","data":"AAAAAA==","mimeType":"audio/wav"}}],' +
        '"file":{"type":"resource","resource":{"uri":"file:///c.bin","blob":"AAAA"}},' +
        '"note":{"type":"resource","resource":{"uri":"file:///n.txt","text":"kept"}},"image":{"type":"image"}}',
    );
    const value = resultValue({ content: [], structuredContent: structured });
    expect(JSON.stringify(value)).toBe(
      '{"__proto__":{"x":1},"clips":[{"take":"[audio audio/wav, 4 bytes]"}],"file":"[resource file:///c.bin]",' +
        '"note":{"type":"resource","resource":{"uri":"file:///n.txt","text":"kept"}},"image":{"type":"image"}}',
    );
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    const plain = { rows: [{ a: 1 }], text: "no media" };
    expect(resultValue({ content: [], structuredContent: plain })).toBe(plain);
  });

  it("throws McpToolError for isError, with its text or a reason", () => {
    expect(() => resultValue({ content: [{ type: "text", text: "no such city" }], isError: true })).toThrow(
      new McpToolError("no such city"),
    );
    expect(() => resultValue({ content: [], isError: true })).toThrow(/gave no text/);
  });
});
