import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { hangGuard } from "@agentloop/store-testkit/servers";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { keepScreenshot, launchChromium } from "../browser.js";
import { fixture, tempDir } from "../cli.js";
import { type Studio, startStudio } from "../studio.js";

const dir = tempDir();
const store = join(dir, "runs");
let studio: Studio;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  const script = join(dir, "talk.json");
  writeFileSync(
    script,
    JSON.stringify([
      { content: "Pune is warm today.", toolCalls: [] },
      { content: "Delhi is warmer still.", toolCalls: [] },
    ]),
  );
  // The studio watches a store that exists (an empty one here).
  mkdirSync(store);
  studio = await startStudio(["--store", store, "--tools", fixture("tools.mjs"), "--script", script]);
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  await page.goto(studio.url);
}, hangGuard(60_000));

afterAll(async () => {
  await browser?.close();
});

describe("agentloop studio in Chromium, with a model", { timeout: hangGuard(60_000) }, () => {
  it("starts a run from the list, then takes it further with a next message", async () => {
    await page.waitForSelector("body[data-ready]");
    await page.fill("#task", "How warm is Pune?");
    await page.click('#start button[type="submit"]');
    await page.waitForURL(/\/runs\/run-/);
    await page.waitForFunction("document.getElementById('outcome')?.textContent.startsWith('done')", null, {
      timeout: hangGuard(45_000),
    });
    expect(await page.locator(".answer").textContent()).toContain("Pune is warm today.");
    await page.fill("#message", "And Delhi?");
    await page.click('#chat button[type="submit"]');
    await page.waitForFunction(
      "document.querySelector('.answer').textContent.includes('Delhi is warmer still.')",
      null,
      {
        timeout: hangGuard(45_000),
      },
    );
    expect(await page.locator("#outcome").textContent()).toContain("2 turns");
    await keepScreenshot(page, "studio-chat");
  });

  it("says on the page why a message could not go on (the script ran out)", async () => {
    await page.fill("#message", "And Mumbai?");
    await page.click('#chat button[type="submit"]');
    await page.waitForFunction("document.getElementById('failure').textContent.length > 0", null, {
      timeout: hangGuard(45_000),
    });
    expect(await page.locator("#failure").textContent()).toMatch(/script/i);
  });
});

describe("agentloop studio: streamed text", () => {
  it("sends the text of a run it started as the model streams it", async () => {
    const stream = await studio.get("/events");
    const reader = stream.body?.getReader();
    const deltasOf = (text: string) =>
      [...text.matchAll(/event: delta\ndata: (.*)\n/g)].map(
        (match) => JSON.parse(match[1] ?? "{}") as { runId: string; text: string },
      );
    const heard = (async () => {
      let text = "";
      while (
        !deltasOf(text)
          .map((delta) => delta.text)
          .join("")
          .includes("Pune is warm")
      ) {
        const chunk = await reader?.read();
        if (chunk === undefined || chunk.done) break;
        text += new TextDecoder().decode(chunk.value);
      }
      return text;
    })();
    const started = await studio.post("/api/runs", { task: "How warm is Pune, streamed?" });
    expect(started.status).toBe(202);
    const text = await heard;
    await reader?.cancel();
    const { runId } = (await started.json()) as { runId: string };
    const streamed = deltasOf(text).filter((delta) => delta.runId === runId);
    expect(streamed.length).toBeGreaterThan(1);
    expect(streamed.map((delta) => delta.text).join("")).toBe("Pune is warm today.");
  });
});
