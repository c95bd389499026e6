import { join } from "node:path";
import { hangGuard } from "@agentloop/store-testkit/servers";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EXIT_CODES } from "../../src/exit-codes.js";
import { keepScreenshot, launchChromium, overlapsOf } from "../browser.js";
import { fixture, tempDir } from "../cli.js";
import { agentloop } from "../in-process.js";
import { readEvents } from "../logs.js";
import { type Studio, startStudio } from "../studio.js";

// Runs paused on the user's question, answered from the studio's page: `asking` asks itself
// (q1, whose answer is { city }); `tree` waits on its child `tree.r1`, which asks (r1/q1).
const dir = tempDir();
const store = join(dir, "runs");
const tools = fixture("ask-tree-tools.mjs");
const LAPTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };
let studio: Studio;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  const run = async (runId: string, script: string) => {
    const ran = await agentloop([
      "run",
      "--tools",
      tools,
      "--script",
      fixture(script),
      "--store",
      store,
      "--run-id",
      runId,
      "Weather?",
    ]);
    expect(ran.code, ran.stderr).toBe(EXIT_CODES.awaiting_input);
  };
  await run("asking", "ask-script.json");
  await run("asking-too", "ask-script.json");
  await run("tree", "ask-tree-script.json");
  studio = await startStudio(["--store", store, "--tools", tools, "--script", fixture("ask-rest.json")]);
  browser = await launchChromium();
  page = await browser.newPage({ viewport: LAPTOP });
  await page.goto(studio.url);
}, hangGuard(120_000));

afterAll(async () => {
  await browser?.close();
});

async function open(path: string): Promise<void> {
  await page.goto(`${studio.base}${path}`);
  await page.waitForSelector("body[data-ready]");
}

/** Presses Tab until the focused element is `id`; the keyboard alone reaches it. */
async function tabTo(id: string): Promise<void> {
  let focused = "";
  for (let presses = 0; presses < 25 && focused !== id; presses++) {
    await page.keyboard.press("Tab");
    focused = String(await page.evaluate("document.activeElement.id"));
  }
  expect(focused).toBe(id);
}

const PARTS = [".studio-bar > *", ".studio-bar form > *", "header > *", ".questions > *", "#conversation > li"];
async function expectNoOverlaps(): Promise<void> {
  for (const selector of PARTS) expect(await overlapsOf(page, selector), selector).toEqual([]);
}

describe("the studio answers a run's question", { timeout: hangGuard(90_000) }, () => {
  it("shows the question and its shape, refuses an answer that does not fit in one line, and goes on with one that fits, by keyboard", async () => {
    await open("/runs/asking");
    expect(await page.locator("#outcome").textContent()).toMatch(/^awaiting_input/);
    expect(await page.locator("#questions").textContent()).toContain("Question q1: Which city?");
    expect(await page.locator("#questions .shape").textContent()).toContain('"required":["city"]');
    await expectNoOverlaps();
    await keepScreenshot(page, "studio-question-laptop");
    const logged = (await readEvents(join(store, "asking.jsonl"))).length;
    await tabTo("answer-q1");
    await page.keyboard.type("Pune");
    await page.keyboard.press("Enter");
    await expect
      .poll(() => page.locator("#failure").textContent(), { timeout: hangGuard(30_000) })
      .toContain("the answer to 'q1' does not fit");
    expect((await page.locator("#failure").textContent())?.split("\n")).toHaveLength(1);
    // Refused before anything was logged: the question still waits.
    expect(await readEvents(join(store, "asking.jsonl"))).toHaveLength(logged);
    await keepScreenshot(page, "studio-question-refused");
    await page.locator("#answer-q1").fill("");
    await page.keyboard.type('{"city":"Pune"}');
    await page.keyboard.press("Enter");
    await page.waitForFunction("document.getElementById('outcome').textContent.startsWith('done')", null, {
      timeout: hangGuard(45_000),
    });
    await expect
      .poll(() => page.locator("#conversation").textContent(), { timeout: hangGuard(30_000) })
      .toContain("Thanks, noted.");
    expect(await page.locator("form.answer").count()).toBe(0);
    await keepScreenshot(page, "studio-question-answered");
  });

  it("fits a phone: the question, its box and its button on the screen", async () => {
    await page.setViewportSize(PHONE);
    await open("/runs/asking-too");
    const button = page.locator('form.answer[data-call="q1"] button');
    const box = await button.boundingBox();
    expect((box?.x ?? -1) >= 0 && (box?.x ?? 0) + (box?.width ?? 0) <= PHONE.width).toBe(true);
    expect(await page.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1")).toBe(true);
    await expectNoOverlaps();
    await keepScreenshot(page, "studio-question-phone");
    await page.setViewportSize(LAPTOP);
  });

  it("refuses an answer to a question that does not wait, and one posted to a child, naming the root and the chained id", async () => {
    const stray = await studio.post("/api/runs/asking-too/answers", { callId: "q9", answer: "Pune" });
    expect(stray.status).toBe(409);
    expect(((await stray.json()) as { error: string }).error).toBe(
      "run 'asking-too' does not wait for an answer to 'q9'; the questions that wait: q1",
    );
    const child = await studio.post(`/api/runs/${encodeURIComponent("tree.r1")}/answers`, {
      callId: "q1",
      answer: '{"city":"Pune"}',
    });
    expect(child.status).toBe(409);
    expect(((await child.json()) as { error: string }).error).toContain("answer 'r1/q1' from there");
    const page = await (await studio.get(`/runs/${encodeURIComponent("tree.r1")}`)).text();
    expect(page).toContain("question [r1/q1] waits: answer it from");
    expect(page).not.toContain('class="wait answer"');
  });

  it("answers a child's question from the root's page by its chained id, and the whole tree goes on", async () => {
    await open("/runs/tree");
    expect(await page.locator("#outcome").textContent()).toMatch(/^awaiting_input/);
    expect(await page.locator("#questions").textContent()).toContain("Question r1/q1: Which city, for the report?");
    await tabTo("answer-r1/q1");
    await page.keyboard.type('{"city":"Delhi"}');
    await page.keyboard.press("Enter");
    await page.waitForFunction("document.getElementById('outcome').textContent.startsWith('done')", null, {
      timeout: hangGuard(45_000),
    });
    const child = await readEvents(join(store, "tree.r1.jsonl"));
    expect(JSON.stringify(child)).toContain('research: the user said {\\"city\\":\\"Delhi\\"}');
  });
});

describe("the offline report of a run that asks", () => {
  it("shows the question, its shape and the resume --answer line to paste", async () => {
    const log = join(store, "asking-too.jsonl");
    const file = join(dir, "asking.html");
    const shown = await agentloop(["show", log, "--html", file]);
    expect(shown.code, shown.stderr).toBe(0);
    const report = await browser.newPage({ viewport: LAPTOP });
    await report.goto(`file://${file}`);
    await report.waitForSelector("body[data-ready]");
    expect(await report.locator("#questions").textContent()).toContain("Question q1: Which city?");
    expect(await report.locator("#answer-command").textContent()).toBe(
      `agentloop resume ${log} --tools '<module>' --model '<provider:name>' --answer 'q1=<answer>'`,
    );
    await keepScreenshot(report, "report-question");
    await report.close();
  });
});
