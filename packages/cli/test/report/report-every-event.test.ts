import { copyFileSync, mkdirSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { hangGuard } from "@agentloop/store-testkit/servers";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RUN_EVENT_TYPES } from "../../src/core-api.js";
import { keepScreenshot, launchChromium } from "../browser.js";
import { tempDir } from "../cli.js";
import { agentloop } from "../in-process.js";
import { startStudio } from "../studio.js";

// slow: it opens a report of every event in Chromium and selects each one.

const GOLDEN = join(import.meta.dirname, "..", "..", "..", "core", "test", "fixtures", "golden");
/** The golden logs of core, which between them hold every event type core defines. */
const LOGS = readdirSync(GOLDEN).filter((name) => name.endsWith(".jsonl"));

/** The event types of a golden log, in order. */
const typesOf = (name: string): string[] =>
  readFileSync(join(GOLDEN, name), "utf8")
    .trim()
    .split("\n")
    .map((line) => (JSON.parse(line) as { type: string }).type);

let browser: Browser;
let page: Page;

beforeAll(async () => {
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
}, hangGuard(60_000));

afterAll(async () => {
  await browser?.close();
});

/** Writes the report of a golden log and opens it in Chromium. */
async function openReport(name: string): Promise<void> {
  const log = join(tempDir(), name);
  copyFileSync(join(GOLDEN, name), log);
  const out = join(tempDir(), `${name}.html`);
  const made = await agentloop(["show", log, "--html", out]);
  expect(made.code, made.stderr).toBe(0);
  await page.goto(pathToFileURL(out).href);
  await page.waitForSelector("body[data-ready]");
}

// Runs in the page (the tests are compiled without the DOM's types, so it is kept as text): selects
// every event with the slider, as a user would, and reads the entry the timeline shows for it.
const WALK = `(() => {
  const slider = document.getElementById("step");
  const seen = [];
  for (let i = 0; i <= Number(slider.max); i++) {
    slider.value = String(i);
    slider.dispatchEvent(new Event("input", { bubbles: true }));
    const entry = document.querySelector('.entry[data-index="' + i + '"]');
    seen.push({
      index: i,
      type: entry ? entry.querySelector(".type").textContent : "",
      detail: entry ? entry.querySelector(".detail").textContent.trim() : "",
    });
  }
  return seen;
})()`;

describe("the report shows every logged event with its text", { timeout: hangGuard(60_000) }, () => {
  // Regression test; before the change: the page's script had no case for output.checked,
  // guardrail.checked and retry.waited (and nothing for a run.started that is not a fork), so
  // their entries carried a type and a blank where their text belongs.
  it("the golden logs hold every event type core defines between them", () => {
    const met = new Set(LOGS.flatMap((name) => typesOf(name)));
    expect([...met].sort()).toEqual([...RUN_EVENT_TYPES].sort());
  });

  it.each(LOGS)("%s: walked with the slider, every event's entry names its type and says something", async (name) => {
    await openReport(name);
    const seen = (await page.evaluate(WALK)) as { index: number; type: string; detail: string }[];
    expect(seen.map((entry) => entry.type)).toEqual(typesOf(name));
    expect(seen.filter((entry) => entry.detail === "").map((entry) => `#${entry.index} ${entry.type}`)).toEqual([]);
  });

  it("an output check names its value or its problem, a guardrail its stage, name and verdict", async () => {
    await openReport("v4-output-guardrails.jsonl");
    const timeline = await page.locator("#timeline").textContent();
    expect(timeline).toContain('valid: {"city":"Pune","fahrenheit":86}');
    expect(timeline).toMatch(/output \S+: passed/);
    await keepScreenshot(page, "report-output-guardrails");
  });

  it("a tripped guardrail and its reason are in the run's header", async () => {
    await openReport("v4-guardrail-tripped.jsonl");
    expect(await page.locator("#outcome").textContent()).toMatch(/^guardrail_tripped/);
    expect(await page.locator("header #tripped").textContent()).toBe("Tripped input guardrail topic: off topic");
    expect(await page.locator("#timeline").textContent()).toContain("input topic: tripped (off topic)");
    await keepScreenshot(page, "report-guardrail-tripped");
  });

  it("the studio's run page shows the same: every event with its text, the tripped guardrail in the header", async () => {
    const store = join(tempDir(), "runs");
    mkdirSync(store);
    const names = ["v4-guardrail-tripped", "v4-output-guardrails", "v4-retries"];
    for (const name of names) copyFileSync(join(GOLDEN, `${name}.jsonl`), join(store, `${name}.jsonl`));
    const studio = await startStudio(["--store", store]);
    await page.goto(studio.url);
    for (const name of names) {
      await page.goto(`${studio.base}/runs/${name}`);
      await page.waitForSelector("body[data-ready]");
      const seen = (await page.evaluate(WALK)) as { index: number; type: string; detail: string }[];
      expect(seen.length).toBeGreaterThan(0);
      expect(
        seen.filter((entry) => entry.detail === "").map((entry) => `${name} #${entry.index} ${entry.type}`),
      ).toEqual([]);
    }
    await page.goto(`${studio.base}/runs/v4-guardrail-tripped`);
    await page.waitForSelector("body[data-ready]");
    expect(await page.locator("header #tripped").textContent()).toBe("Tripped input guardrail topic: off topic");
    await keepScreenshot(page, "studio-guardrail-tripped");
    studio.child.kill("SIGTERM");
  });
});
