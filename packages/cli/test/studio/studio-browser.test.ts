import { appendFileSync, copyFileSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { hangGuard } from "@agentloop/store-testkit/servers";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type StoredEvent, shownAtStep } from "../../src/core-api.js";
import { keepScreenshot, launchChromium, overlapsOf } from "../browser.js";
import { fixture, tempDir } from "../cli.js";
import { agentloop } from "../in-process.js";
import { readEvents, sealedFor } from "../logs.js";
import { type Studio, startStudio } from "../studio.js";

// slow: it drives the studio in Chromium through every page.

const dir = tempDir();
const store = join(dir, "runs");
let studio: Studio;
let browser: Browser;
let page: Page;

/** The same weather run, but the last answer differs: a run to compare with. */
function otherScript(): string {
  const script = JSON.parse(readFileSync(fixture("weather-script.json"), "utf8")) as { content: string }[];
  const last = script.at(-1);
  if (last !== undefined) last.content = "Pune is at 86 F right now.";
  const file = join(dir, "other-script.json");
  writeFileSync(file, JSON.stringify(script));
  return file;
}

beforeAll(async () => {
  const tools = fixture("tools.mjs");
  const run = (runId: string, script: string) =>
    agentloop(["run", "--tools", tools, "--store", store, "--run-id", runId, "--script", script, "Weather in Pune?"]);
  await run("weather-a", fixture("weather-script.json"));
  await run("weather-b", otherScript());
  await run("paused", fixture("approval-script.json"));
  studio = await startStudio(["--store", store, "--tools", tools, "--script", fixture("approval-rest.json")]);
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  await page.goto(studio.url);
}, hangGuard(60_000));

afterAll(async () => {
  await browser?.close();
});

/** Waits until the studio lists a run whose log was just written, then opens its page. */
async function openNewRun(runId: string): Promise<void> {
  await expect
    .poll(async () => (await studio.get("/api/runs")).text(), { timeout: hangGuard(45_000) })
    .toContain(`"${runId}"`);
  await page.goto(`${studio.base}/runs/${runId}`);
  await page.waitForSelector("body[data-ready]");
}

async function expectNoOverlaps(selectors: readonly string[]): Promise<void> {
  for (const selector of selectors) expect(await overlapsOf(page, selector)).toEqual([]);
}

describe("agentloop studio in Chromium", { timeout: hangGuard(60_000) }, () => {
  it("lists the runs, and filters them as the user types", async () => {
    await page.goto(`${studio.base}/`);
    await page.waitForSelector("body[data-ready]");
    expect(await page.locator("#runs tr").count()).toBe(3);
    expect(await page.locator('#runs tr[data-run="paused"] .badge').textContent()).toBe("awaiting_approval");
    await keepScreenshot(page, "studio-list");
    await expectNoOverlaps([".studio-bar > *", ".tools > *", "#runs td"]);
    await page.fill("#filter", "weather-");
    expect(await page.locator("#runs tr").count()).toBe(2);
    await page.selectOption("#status", "awaiting_approval");
    await page.fill("#filter", "");
    expect(await page.locator("#runs tr").count()).toBe(1);
  });

  it("opens a run: its statechart, path and timeline with the messages", async () => {
    await page.goto(`${studio.base}/`);
    await page.waitForSelector("body[data-ready]");
    await page.click('a[href="/runs/weather-a"]');
    await page.waitForSelector("body[data-ready]");
    expect(await page.locator("svg.chart").count()).toBe(1);
    expect(await page.locator("#outcome").textContent()).toMatch(/^done · 4 steps/);
    expect(await page.locator("#timeline").textContent()).toContain("It is 86 F in Pune.");
    await page.locator("#step").fill("4");
    expect(await page.locator("#prompt-note").textContent()).toBe(
      "The model call answered at event #4 was shown these 4 messages:",
    );
    expect(await page.locator("#prompt > li").allTextContents()).toEqual([
      "system Use the tools to answer the user.",
      "user Weather in Pune?",
      'assistant I will look up Pune first. get_weather({"city":"Pune"})',
      'tool [c1] {"city":"Pune","celsius":30}',
    ]);
    await keepScreenshot(page, "studio-run");
    await expectNoOverlaps([".studio-bar > *", "#timeline > li"]);
  });

  it("follows a run that another process writes, event by event", async () => {
    const events = sealedFor("growing", readEvents(join(store, "weather-a.jsonl")));
    const file = join(store, "growing.jsonl");
    writeFileSync(
      file,
      events
        .slice(0, 3)
        .map((event) => `${JSON.stringify(event)}\n`)
        .join(""),
    );
    await openNewRun("growing");
    expect(await page.locator("#outcome").textContent()).toMatch(/^unfinished/);
    for (const event of events.slice(3)) {
      appendFileSync(file, `${JSON.stringify(event)}\n`);
      await new Promise((resolve) => setTimeout(resolve, 60));
    }
    await page.waitForFunction("document.getElementById('outcome').textContent.startsWith('done')", null, {
      timeout: hangGuard(45_000),
    });
    expect(Number(await page.locator("body").getAttribute("data-updates"))).toBeGreaterThan(0);
    await keepScreenshot(page, "studio-live");
  });

  it("approves a waiting call from the page, and the run goes on to its end", async () => {
    await page.goto(`${studio.base}/runs/paused`);
    await page.waitForSelector("body[data-ready]");
    await keepScreenshot(page, "studio-paused");
    await page.click('button[data-act="decide"][data-approved="1"]');
    await page.waitForFunction("document.getElementById('outcome').textContent.startsWith('done')", null, {
      timeout: hangGuard(45_000),
    });
    expect(await page.locator("#timeline").textContent()).toContain("the report went out");
    await keepScreenshot(page, "studio-approved");
  });

  it("forks a run at the selected event, and opens the fork beside it", async () => {
    await page.goto(`${studio.base}/runs/weather-a`);
    await page.waitForSelector("body[data-ready]");
    await page.locator("#step").fill("4");
    await page.click('button[data-act="fork"]');
    await page.waitForURL(/\/compare\?a=weather-a&b=fork-/);
    expect(await page.locator("#divergence").getAttribute("data-at")).toBe("5");
    expect(await page.locator(".compare > section").count()).toBe(2);
    await keepScreenshot(page, "studio-fork");
  });

  it("compares two runs of the same task, marking where they diverge", async () => {
    await page.goto(`${studio.base}/`);
    await page.waitForSelector("body[data-ready]");
    await page.check('#runs tr[data-run="weather-a"] .pick');
    await page.check('#runs tr[data-run="weather-b"] .pick');
    await page.click("#compare");
    await page.waitForURL(/\/compare\?/);
    expect(await page.locator("#divergence").textContent()).toBe(
      "The runs agree on their first 10 events and diverge at event #10.",
    );
    expect(await page.locator("li.diverges").count()).toBe(2);
    await keepScreenshot(page, "studio-compare");
    await expectNoOverlaps([".compare > section", ".compare li"]);
  });

  it("shows what the model was shown after a compaction: the task, the summary and the messages kept", async () => {
    // core's golden log of a run under compaction; what core's shownAtStep gives is what the page must show.
    const golden = join(
      import.meta.dirname,
      "..",
      "..",
      "..",
      "core",
      "test",
      "fixtures",
      "golden",
      "v4-compaction.jsonl",
    );
    copyFileSync(golden, join(store, "v4-compaction.jsonl"));
    const events = readEvents(golden) as unknown as StoredEvent[];
    const expected = shownAtStep(events, 3) ?? [];
    await openNewRun("v4-compaction");
    await page.locator("#step").fill("8");
    // Polled: a live update of the page may redraw the box between two reads.
    await expect
      .poll(() => page.locator("#prompt-note").textContent())
      .toBe(
        `The model call answered at event #8 was shown these ${expected.length} messages (compacted at event #7: 2 earlier messages hidden, a summary in their place):`,
      );
    const roles = async () => (await page.locator("#prompt > li").allTextContents()).map((text) => text.split(" ")[0]);
    await expect.poll(roles, { timeout: hangGuard(45_000) }).toEqual(expected.map((message) => message.role));
    await expect
      .poll(async () => (await page.locator("#prompt > li").allTextContents())[2], { timeout: hangGuard(45_000) })
      .toContain("Pages 1 and 2 are lorem ipsum.");
    await keepScreenshot(page, "studio-compacted");
  });
});
