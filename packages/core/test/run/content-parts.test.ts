import { describe, expect, it } from "vitest";
import {
  asks,
  type ContentPart,
  contentParts,
  continueAgent,
  countTokens,
  final,
  MAX_PART_BYTES,
  MemoryEventStore,
  partTokens,
  replayRun,
  runAgent,
  scriptedModel,
  streamAgent,
  ToolRegistry,
  tool,
  toolCall,
} from "../../src/index.js";

/** The first 24 bytes of a PNG of `width` × `height`: all the size reader needs. */
function pngHeader(width: number, height: number): Uint8Array {
  const bytes = new Uint8Array(32);
  bytes.set([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]);
  new DataView(bytes.buffer).setUint32(16, width);
  new DataView(bytes.buffer).setUint32(20, height);
  return bytes;
}

const base64 = (bytes: Uint8Array) => Buffer.from(bytes).toString("base64");
const EMPTY = new ToolRegistry();

describe("the task as content parts", () => {
  it("is shown to the model with bytes as base64 and a URL as it is, logged, and replayed the same", async () => {
    const png = pngHeader(100, 50);
    const task: ContentPart[] = [
      { type: "text", text: "What is in these?" },
      { type: "image", mediaType: "image/png", data: png },
      { type: "image", mediaType: "image/jpeg", data: new URL("https://example.com/cat.jpg") },
      { type: "file", mediaType: "application/pdf", data: base64(png), filename: "report.pdf" },
    ];
    const store = new MemoryEventStore();
    const model = scriptedModel([final("A cat.")]);
    const result = await runAgent(task, model, EMPTY, { store, runId: "parts" });
    expect(result.status).toBe("done");
    expect(model.seen[0]?.[1]).toEqual({
      role: "user",
      content: [
        { type: "text", text: "What is in these?" },
        { type: "image", mediaType: "image/png", data: base64(png) },
        { type: "image", mediaType: "image/jpeg", data: "https://example.com/cat.jpg" },
        { type: "file", mediaType: "application/pdf", data: base64(png), filename: "report.pdf" },
      ],
    });
    const log = await store.read("parts");
    const { runId: _runId, ...rest } = result;
    expect(replayRun(log).result).toEqual(rest);
    expect((await store.list())[0]?.task).toBe(
      "What is in these?\n[image image/png]\n[image image/jpeg]\n[file report.pdf]",
    );
  });

  it("text stays text: a string task is shown and logged as the same string", async () => {
    const store = new MemoryEventStore();
    await runAgent("Hi", scriptedModel([final("Hello.")]), EMPTY, { store, runId: "text" });
    const [started] = await store.read("text");
    expect(started?.type === "run.started" && started.settings.task).toBe("Hi");
  });

  it("a data: URL is taken as the bytes it holds", async () => {
    const model = scriptedModel([final("ok")]);
    const data = new URL(`data:image/png;base64,${base64(pngHeader(1, 1))}`);
    await runAgent([{ type: "image", mediaType: "image/png", data }], model, EMPTY);
    expect(model.seen[0]?.[1]?.content).toEqual([
      { type: "image", mediaType: "image/png", data: base64(pngHeader(1, 1)) },
    ]);
  });
});

describe("bad parts are refused in one line", () => {
  const refusal = async (task: unknown) => {
    const error = await runAgent(task as ContentPart[], scriptedModel([final("x")]), EMPTY).then(
      () => null,
      (thrown: unknown) => thrown as Error,
    );
    expect(error?.message).not.toContain("\n");
    return error;
  };

  it("a part of an unknown type", async () => {
    const error = await refusal([{ type: "audio", mediaType: "audio/wav", data: "AAAA" }]);
    expect(error).toBeInstanceOf(TypeError);
    expect(error?.message).toBe('task, part 0 has the unknown type "audio": use text, image or file');
  });

  it("a part over the 50 MiB limit, naming the limit", async () => {
    const error = await refusal([
      { type: "file", mediaType: "application/pdf", data: new Uint8Array(MAX_PART_BYTES + 1) },
    ]);
    expect(error).toBeInstanceOf(RangeError);
    expect(error?.message).toBe(
      "task, part 0 (file) holds 52428801 bytes, over the limit of 52428800 bytes (50 MiB) per part",
    );
  });

  it("data that is neither base64 nor a URL, and an image with a media type that is not an image's", async () => {
    expect((await refusal([{ type: "image", mediaType: "image/png", data: "not base64!" }]))?.message).toBe(
      "task, part 0 (image) has 'data' that is not base64",
    );
    expect((await refusal([{ type: "image", mediaType: "application/pdf", data: "AAAA" }]))?.message).toBe(
      "task, part 0 is an image with the media type 'application/pdf': give it as a file part",
    );
    expect((await refusal([{ type: "text" }]))?.message).toBe(
      "task, part 0 (text) must have a string 'text'; got undefined",
    );
    expect((await refusal(42))?.message).toBe("task must be a string or a list of content parts; got 42");
  });
});

describe("the prompt estimate counts a part by its rule", () => {
  it("an image of known size counts the larger of the providers' formulas, one of unknown size 1,600", () => {
    const image = (bytes: Uint8Array) => ({ type: "image" as const, mediaType: "image/png", data: base64(bytes) });
    // 1000 × 1000: Anthropic 1,334 (1,000,000 / 750), OpenAI 765 (768 × 768, 4 tiles).
    expect(partTokens(image(pngHeader(1000, 1000)))).toBe(1334);
    // 4000 × 500: Anthropic scales it to 1568 × 196 (410); OpenAI to 2048 × 256, 4 × 1 tiles (765).
    expect(partTokens(image(pngHeader(4000, 500)))).toBe(765);
    expect(partTokens({ type: "image", mediaType: "image/png", data: "https://example.com/a.png" })).toBe(1600);
    expect(partTokens({ type: "image", mediaType: "image/png", data: base64(new Uint8Array(30)) })).toBe(1600);
    // A file counts a token per 4 bytes.
    expect(partTokens({ type: "file", mediaType: "text/plain", data: base64(new Uint8Array(400)) })).toBe(100);
    // The message's estimate counts the part's tokens, not its base64.
    const message = { role: "user", content: [image(pngHeader(1000, 1000))] };
    expect(countTokens(message)).toBe(
      Math.floor(
        (JSON.stringify({ role: "user", content: [{ type: "image", mediaType: "image/png" }] }).length + 4 * 1334) / 4,
      ),
    );
  });

  it("the budget check before the first call counts the image: a budget below it makes no call", async () => {
    const model = scriptedModel([final("never")]);
    const task: ContentPart[] = [{ type: "image", mediaType: "image/png", data: pngHeader(1000, 1000) }];
    const result = await runAgent(task, model, EMPTY, { tokenBudget: 1334 });
    expect([result.status, result.steps, model.seen.length]).toEqual(["token_budget", 0, 0]);
    const enough = await runAgent(task, scriptedModel([final("a square")]), EMPTY, { tokenBudget: 1500 });
    expect(enough.status).toBe("done");
  });
});

describe("a PDF counts by page, as the providers read it", () => {
  /** A PDF of `pages` page objects, uncompressed. */
  const pdf = (pages: number) => {
    const kids = Array.from({ length: pages }, (_, index) => `${index + 3} 0 R`).join(" ");
    const objects = Array.from(
      { length: pages },
      (_, index) => `${index + 3} 0 obj << /Type /Page /Parent 2 0 R >> endobj`,
    );
    const text = [
      "%PDF-1.4",
      "1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj",
      `2 0 obj << /Type /Pages /Kids [${kids}] /Count ${pages} >> endobj`,
      ...objects,
      "%%EOF",
    ].join("\n");
    return new TextEncoder().encode(text);
  };
  const file = (data: Uint8Array | string) => ({ type: "file" as const, mediaType: "application/pdf", data });

  it("3,100 tokens a page: its picture (1,600) and its text (1,500), from the page objects or a linearized PDF's count", () => {
    expect(partTokens(file(base64(pdf(1))))).toBe(3100);
    expect(partTokens(file(base64(pdf(3))))).toBe(9300);
    // Written without spaces, or across lines, as writers do; `/Pages` is the page tree, not a page.
    const compact =
      "%PDF-1.3\n2 0 obj<</Type/Pages/Count 2>>endobj 3 0 obj<</Type/Page>>endobj 4 0 obj<</Type\r\n/Page/Parent 2 0 R>>";
    expect(partTokens(file(base64(new TextEncoder().encode(compact))))).toBe(6200);
    const linearized =
      "%PDF-1.7\n1 0 obj << /Linearized 1 /L 90000 /H [ 600 180 ] /O 4 /E 3000 /N 12 /T 89000 >> endobj\n";
    expect(partTokens(file(base64(new TextEncoder().encode(linearized))))).toBe(12 * 3100);
  });

  it("a PDF whose pages its bytes do not tell counts a token per 4 bytes, as any file; one by URL 1,600", () => {
    // Its page objects compressed in an object stream: no `/Type /Page` to read.
    const packed = new Uint8Array(40_000);
    packed.set(new TextEncoder().encode("%PDF-1.7\n1 0 obj << /Type /ObjStm /N 40 /Filter /FlateDecode >> stream\n"));
    expect(partTokens(file(base64(packed)))).toBe(10_000);
    expect(partTokens(file(base64(new TextEncoder().encode("%PDF-1.7 a tiny report"))))).toBe(6);
    expect(partTokens(file("https://example.com/report.pdf"))).toBe(1600);
  });

  it("the budget check before the first call counts the pages: a 3-page PDF is not a few characters", async () => {
    const task: ContentPart[] = [
      { type: "text", text: "Sum it up." },
      { type: "file", mediaType: "application/pdf", data: pdf(3) },
    ];
    const model = scriptedModel([final("never")]);
    const result = await runAgent(task, model, EMPTY, { tokenBudget: 9300 });
    expect([result.status, result.steps, model.seen.length]).toEqual(["token_budget", 0, 0]);
    const enough = await runAgent(task, scriptedModel([final("Three pages.")]), EMPTY, { tokenBudget: 9500 });
    expect(enough.status).toBe("done");
  });
});

describe("a tool's result as content parts", () => {
  const shot = pngHeader(640, 480);
  const registry = new ToolRegistry([
    tool({
      name: "screenshot",
      description: "Takes a screenshot.",
      parameters: { type: "object", properties: {} },
      execute: () =>
        contentParts([
          { type: "text", text: "the screen:" },
          { type: "image", mediaType: "image/png", data: shot },
        ]),
    }),
    tool({
      name: "broken",
      description: "Returns a bad part.",
      parameters: { type: "object", properties: {} },
      execute: () => contentParts([{ type: "video" } as unknown as ContentPart]),
    }),
  ]);

  it("is the tool message's content, streamed with its parts, logged and replayed", async () => {
    const store = new MemoryEventStore();
    const model = scriptedModel([asks(toolCall("c1", "screenshot"), toolCall("c2", "broken")), final("done")]);
    const stream = streamAgent("Look.", model, registry, { store, runId: "tool-parts" });
    const finished = [];
    for await (const event of stream)
      if (event.type === "logged" && event.event.type === "tool.finished") finished.push(event.event);
    const result = await stream.result;
    const parts = [
      { type: "text", text: "the screen:" },
      { type: "image", mediaType: "image/png", data: base64(shot) },
    ];
    expect(result.messages[3]).toEqual({ role: "tool", toolCallId: "c1", name: "screenshot", content: parts });
    expect(finished[0]).toEqual({ type: "tool.finished", callId: "c1", content: parts });
    // A bad part fails the call, told to the model in one line.
    expect(result.messages[4]?.content).toBe(
      `ERROR: broken failed: TypeError: the tool's result, part 0 has the unknown type "video": use text, image or file`,
    );
    const { runId: _runId, ...rest } = result;
    expect(replayRun(await store.read("tool-parts")).result).toEqual(rest);
  });
});

describe("a conversation goes on with parts", () => {
  it("continueAgent takes a list of parts as the next message, logged as user.messaged", async () => {
    const store = new MemoryEventStore();
    await runAgent("Hi", scriptedModel([final("Hello.")]), EMPTY, { store, runId: "chat" });
    const model = scriptedModel([final("A dot.")]);
    const message: ContentPart[] = [
      { type: "text", text: "And this?" },
      { type: "image", mediaType: "image/gif", data: new URL("https://example.com/dot.gif") },
    ];
    const result = await continueAgent("chat", message, model, EMPTY, { store });
    expect(result.answer).toBe("A dot.");
    expect(model.seen[0]?.at(-1)?.content).toEqual([
      { type: "text", text: "And this?" },
      { type: "image", mediaType: "image/gif", data: "https://example.com/dot.gif" },
    ]);
    const log = await store.read("chat");
    expect(log.find((event) => event.type === "user.messaged")).toMatchObject({
      content: model.seen[0]?.at(-1)?.content,
    });
  });
});
