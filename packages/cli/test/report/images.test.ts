import { createHash } from "node:crypto";
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { crc32, deflateSync } from "node:zlib";
import { contentParts } from "@agentloop/core";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { asks, final, JsonlEventStore, runAgent, scriptedModel, ToolRegistry, toolCall } from "../../src/core-api.js";
import { keepScreenshot, launchChromium } from "../browser.js";
import { tempDir } from "../cli.js";
import { agentloop } from "../in-process.js";
import { type Studio, startStudio } from "../studio.js";

// A run whose task and a tool's result hold the same picture (and the tool a PDF besides): the
// terminal names each part, the report holds the picture's bytes once and draws it, and the studio
// serves it from the blob route instead of putting it in its pages.

/** A PNG of `width` × `height`, a gradient of colours: a picture the browser draws. */
function gradientPng(width: number, height: number): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, "latin1"), data]);
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(body));
    return Buffer.concat([length, body, crc]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 2, 0, 0, 0], 8); // 8 bits, RGB
  const rows: number[] = [];
  for (let y = 0; y < height; y++) {
    rows.push(0);
    for (let x = 0; x < width; x++) rows.push((x * 255) / width, (y * 255) / height, 160);
  }
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", header),
    chunk("IDAT", deflateSync(Buffer.from(rows))),
    chunk("IEND", Buffer.alloc(0)),
  ]);
}

const PICTURE = gradientPng(240, 140);
const SHA = createHash("sha256").update(PICTURE).digest("hex");
const BASE64 = PICTURE.toString("base64");
const PDF = Buffer.from("%PDF-1.4 a small file");
const dir = tempDir();
const store = join(dir, "runs");
const DOCS_IMAGES = fileURLToPath(new URL("../../../../docs/images/", import.meta.url));

async function pictureRun(runId: string): Promise<void> {
  const registry = new ToolRegistry();
  registry.register("snap", "Takes a picture.", { type: "object" }, () =>
    contentParts([
      { type: "text", text: "the picture again, and its notes:" },
      { type: "image", mediaType: "image/png", data: PICTURE },
      { type: "file", mediaType: "application/pdf", data: PDF, filename: "notes.pdf" },
    ]),
  );
  const task = [
    { type: "text", text: "What is in this picture?" },
    { type: "image", mediaType: "image/png", data: PICTURE },
  ] as const;
  const model = scriptedModel([asks(toolCall("c1", "snap", {})), final("A gradient, blue to pink.")]);
  const result = await runAgent(task, model, registry, { store: new JsonlEventStore(store), runId });
  expect(result.status).toBe("done");
}

let browser: Browser;
beforeAll(async () => {
  await pictureRun("picture");
  await pictureRun("lost");
  rmSync(join(store, "lost.blobs", SHA));
  browser = await launchChromium();
});
afterAll(() => browser?.close());

describe("a run with images", () => {
  it("show names each part by its type, size and hash, never its bytes", async () => {
    const shown = await agentloop(["show", join(store, "picture.jsonl"), "--no-color"]);
    expect(shown.code).toBe(0);
    const kb = Math.round(PICTURE.length / 1024);
    expect(shown.stdout).toContain(`[image image/png, ${kb} KB, sha256:${SHA.slice(0, 12)}…]`);
    expect(shown.stdout).toContain("[file notes.pdf (application/pdf), 21 B, sha256:");
    expect(shown.stdout).not.toContain(BASE64.slice(0, 40));
  });

  it("show refuses a run whose blob is missing in one line naming the run, the event and the hash", async () => {
    const shown = await agentloop(["show", join(store, "lost.jsonl")]);
    expect(shown.code).toBe(2);
    expect(shown.stderr).toContain(
      `run 'lost': event 0 refers to blob sha256:${SHA} (image/png, ${PICTURE.length} bytes), which is missing from the folder ${join(store, "lost.blobs")}`,
    );
  });

  it("the report holds the picture's bytes once and draws it in the conversation", async () => {
    const report = join(dir, "picture.html");
    expect((await agentloop(["show", join(store, "picture.jsonl"), "--html", report])).code).toBe(0);
    const html = readFileSync(report, "utf8");
    expect(html.split(BASE64).length - 1).toBe(1);
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(`file://${report}`);
    await page.locator("#conversation").getByText("the picture again").first().scrollIntoViewIfNeeded();
    await page.waitForFunction(
      `[...document.querySelectorAll("#conversation .media img")].every((image) => image.complete)`,
    );
    const widths = (await page.evaluate(
      `[...document.querySelectorAll("#conversation .media img")].map((image) => image.naturalWidth)`,
    )) as number[];
    expect(widths.length).toBeGreaterThanOrEqual(2);
    expect(widths.every((width) => width === 240)).toBe(true);
    expect(await page.locator("#conversation figcaption", { hasText: "notes.pdf" }).count()).toBeGreaterThan(0);
    const screenshot = await keepScreenshot(page, "report-image");
    if (process.env.AGENTLOOP_DOCS_IMAGES === "1") {
      mkdirSync(DOCS_IMAGES, { recursive: true });
      copyFileSync(screenshot, join(DOCS_IMAGES, "report-image.png"));
    }
    await page.close();
  });
});

describe("the studio and a run with images", () => {
  let studio: Studio;
  beforeAll(async () => {
    studio = await startStudio(["--store", store]);
  });

  it("serves the picture's bytes from the blob route, and its pages hold none", async () => {
    const blob = await studio.get(`/runs/picture/blobs/${SHA}`);
    expect(blob.status).toBe(200);
    expect(blob.headers.get("content-type")).toBe("image/png");
    expect(Buffer.from(await blob.arrayBuffer()).equals(PICTURE)).toBe(true);
    const pdfSha = createHash("sha256").update(PDF).digest("hex");
    const pdf = await studio.get(`/runs/picture/blobs/${pdfSha}`);
    expect(pdf.headers.get("content-disposition")).toBe("attachment");
    expect((await studio.get(`/runs/picture/blobs/${"0".repeat(64)}`)).status).toBe(404);
    const page = await studio.get("/runs/picture");
    expect(page.status).toBe(200);
    expect(await page.text()).not.toContain(BASE64.slice(0, 40));
  });

  it("draws the picture in the conversation, fetched once from the blob route", async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const fetched: string[] = [];
    page.on("request", (request) => {
      if (request.url().includes("/blobs/")) fetched.push(request.url());
    });
    await page.goto(studio.url);
    await page.goto(`${studio.base}/runs/picture`);
    await page.locator("#conversation .media img").first().waitFor();
    await page.waitForFunction(
      `[...document.querySelectorAll("#conversation .media img")].every((image) => image.complete)`,
    );
    const widths = (await page.evaluate(
      `[...document.querySelectorAll("#conversation .media img")].map((image) => image.naturalWidth)`,
    )) as number[];
    expect(widths.length).toBeGreaterThanOrEqual(2);
    expect(widths.every((width) => width === 240)).toBe(true);
    expect(new Set(fetched).size).toBe(1);
    const screenshot = await keepScreenshot(page, "studio-image");
    if (process.env.AGENTLOOP_DOCS_IMAGES === "1") copyFileSync(screenshot, join(DOCS_IMAGES, "studio-image.png"));
    await page.close();
  });

  it("refuses a run whose blob is missing, naming the run, the event and the hash", async () => {
    const page = await studio.get("/runs/lost");
    expect(page.status).toBe(409);
    expect(await page.text()).toContain(`event 0 refers to blob sha256:${SHA}`);
    expect(existsSync(join(store, "lost.jsonl"))).toBe(true);
  });
});
