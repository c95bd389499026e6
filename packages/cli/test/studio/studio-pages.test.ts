import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { hangGuard } from "@agentloop/store-testkit/servers";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { keepScreenshot, launchChromium, overlapsOf } from "../browser.js";
import { cli, fixture, tempDir } from "../cli.js";
import { agentloop } from "../in-process.js";
import { type Studio, startStudio } from "../studio.js";

// The studio as a person uses it: on a laptop (1280×800) and a phone (390×844), with the keyboard
// alone, and the eval reports beside the runs they scored.
const dir = tempDir();
const store = join(dir, "runs");
const evals = join(dir, "evals");
const CAPITALS = fixture("eval-capitals.mjs");
const LAPTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };
let studio: Studio;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  mkdirSync(evals, { recursive: true });
  const tools = fixture("tools.mjs");
  const run = (runId: string, script: string) =>
    agentloop(["run", "--tools", tools, "--store", store, "--run-id", runId, "--script", script, "Weather in Pune?"]);
  await run("weather", fixture("weather-script.json"));
  await run("paused", fixture("approval-script.json"));
  await run("paused-too", fixture("approval-script.json"));
  // A priced run: the list has a cost column when the store holds one.
  writeFileSync(join(dir, "pricing.json"), JSON.stringify({ default: { input: 3, output: 15 } }));
  const priced = await agentloop([
    "run",
    "--tools",
    tools,
    "--store",
    store,
    "--run-id",
    "priced",
    "--script",
    fixture("weather-script.json"),
    "--pricing",
    join(dir, "pricing.json"),
    "How hot is Pune in Fahrenheit, and what should a traveller arriving this afternoon pack?",
  ]);
  expect(priced.code, priced.stderr).toBe(0);
  // Two evaluations of the same cases: the second answers Peru wrong.
  const good = await agentloop([
    "eval",
    CAPITALS,
    "--store",
    store,
    "--json",
    join(evals, "1-good.json"),
    "--html",
    join(dir, "1-good.html"),
  ]);
  expect(good.code, good.stderr).toBe(0);
  const worse = await cli(["eval", CAPITALS, "--store", store, "--json", join(evals, "2-worse.json")], {
    env: { EVAL_VARIANT: "worse" },
  });
  expect(worse.code, worse.stderr).toBe(1);
  writeFileSync(join(evals, "not-a-report.json"), JSON.stringify({ hello: "world" }));
  const args = ["--store", store, "--evals", evals, "--tools", tools, "--script", fixture("approval-rest.json")];
  studio = await startStudio(args);
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

/** Text drawn over other text, anywhere the page puts text side by side. */
async function expectNoOverlaps(selectors: readonly string[]): Promise<void> {
  for (const selector of selectors) expect(await overlapsOf(page, selector), selector).toEqual([]);
}

/** Whether the page is wider than the window (a phone would scroll sideways). */
const overflows = () => page.evaluate("document.documentElement.scrollWidth > window.innerWidth + 1");

const RUN_PARTS = [
  ".studio-bar > *",
  "header > *",
  ".player > *",
  "#conversation > li",
  "#prompt > li",
  ".said-entry > *",
  "#timeline > li",
  "#timeline .head > *",
];

/**
 * The words of `selector`'s text drawn over two lines (broken mid-word), as "word in <text>". Runs
 * in the page (the tests are compiled without the DOM's types, so it is kept as text).
 */
const BROKEN_WORDS = `(css) => {
  const broken = [];
  for (const element of document.querySelectorAll(css)) {
    const walker = document.createTreeWalker(element, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node !== null; node = walker.nextNode()) {
      for (const match of node.data.matchAll(/\\S+/g)) {
        const range = document.createRange();
        range.setStart(node, match.index);
        range.setEnd(node, match.index + match[0].length);
        const lines = new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top)));
        if (lines.size > 1) broken.push(match[0] + " in " + JSON.stringify(element.textContent.slice(0, 40)));
      }
    }
  }
  return broken;
}`;

/** The narrowest box of text among `selector`'s, in pixels: text squeezed into a sliver is unreadable. */
const narrowest = (selector: string) =>
  page.evaluate(
    `Math.min(...[...document.querySelectorAll(${JSON.stringify(selector)})].map((e) => e.getBoundingClientRect().width))`,
  );

describe("the studio as a person uses it", { timeout: hangGuard(90_000) }, () => {
  it("a run opens on its conversation, the last event selected and what the model was shown filled", async () => {
    for (const [name, viewport] of [
      ["laptop", LAPTOP],
      ["phone", PHONE],
    ] as const) {
      await page.setViewportSize(viewport);
      await open("/runs/weather");
      // The conversation starts within the first screen; the chart is folded away.
      const top = (await page.locator("#conversation").boundingBox())?.y ?? Number.POSITIVE_INFINITY;
      expect(top).toBeLessThan(viewport.height);
      expect(await page.locator("details#chart").getAttribute("open")).toBeNull();
      expect(await page.locator("#step").inputValue()).toBe(await page.locator("#step").getAttribute("max"));
      const said = await page.locator("#conversation").textContent();
      for (const text of ["Weather in Pune?", "get_weather", '{"city":"Pune","celsius":30}', "It is 86 F in Pune."]) {
        expect(said).toContain(text);
      }
      expect(await page.locator("#prompt-note").textContent()).toMatch(/^The model call answered at event #\d+/);
      expect(await page.locator("#prompt > li").count()).toBeGreaterThan(3);
      expect(await overflows()).toBe(false);
      await expectNoOverlaps(RUN_PARTS);
      expect(await narrowest("#timeline .msg, #conversation .bubble")).toBeGreaterThan(viewport.width / 2);
      await keepScreenshot(page, `studio-run-${name}`);
    }
    // Opened, the chart is drawn at its own size: its labels at least 11 px at 100% zoom.
    await page.setViewportSize(LAPTOP);
    await page.click("details#chart > summary");
    const smallest = await page.evaluate(
      "Math.min(...[...document.querySelectorAll('svg.chart text')].map((t) => t.getBoundingClientRect().height).filter((h) => h > 0))",
    );
    expect(smallest).toBeGreaterThanOrEqual(11);
  });

  it("the list fits a phone: no overlapping text, nothing wider than the screen", async () => {
    await page.setViewportSize(PHONE);
    await open("/");
    expect(await page.locator("#runs tr").count()).toBeGreaterThan(3);
    await expectNoOverlaps([".studio-bar > *", ".tools > *", "#runs td"]);
    expect(await page.evaluate("document.body.scrollWidth <= window.innerWidth + 1")).toBe(true);
    await keepScreenshot(page, "studio-list-phone");
    await page.setViewportSize(LAPTOP);
  });

  it("on a phone, every row shows its whole task with no word broken, its cost and its numbers on the screen", async () => {
    await page.setViewportSize(PHONE);
    await open("/");
    expect(await page.evaluate(`(${BROKEN_WORDS})("#runs td")`)).toEqual([]);
    const priced = page.locator('#runs tr[data-run="priced"]');
    expect(await priced.locator("td.cost").textContent()).toMatch(/^\$0\.\d+$/);
    for (const cell of ["td.cost", "td.tokens", "td.steps", "td.task"]) {
      const box = await priced.locator(cell).boundingBox();
      expect(box, cell).not.toBeNull();
      expect((box?.x ?? -1) >= 0 && (box?.x ?? 0) + (box?.width ?? 0) <= PHONE.width + 1, cell).toBe(true);
    }
    await keepScreenshot(page, "studio-list-phone-rows");
    await page.setViewportSize(LAPTOP);
    await open("/");
    expect(await page.locator("#runs-table thead").textContent()).toContain("cost");
    expect(await priced.locator("td.cost").textContent()).toMatch(/^\$0\.\d+$/);
    expect(await page.locator('#runs tr[data-run="weather"] td.cost').textContent()).toBe("-");
  });

  it("the status filter names each status once", async () => {
    await open("/");
    const options = await page.locator("#status option").allTextContents();
    expect(options.filter((option, index) => options.indexOf(option) !== index)).toEqual([]);
    expect(options).toContain("refused");
  });

  it("approves a waiting call with the keyboard alone, and the conversation goes on live", async () => {
    await open("/runs/paused");
    expect(await page.locator("#conversation").textContent()).toContain("waiting for a decision on m1 (send_report)");
    let focused = "";
    for (let presses = 0; presses < 20 && focused !== "decide 1"; presses++) {
      await page.keyboard.press("Tab");
      focused = String(
        await page.evaluate(
          "(document.activeElement.dataset.act || '') + ' ' + (document.activeElement.dataset.approved || '')",
        ),
      );
    }
    expect(focused).toBe("decide 1");
    await keepScreenshot(page, "studio-keyboard-focus");
    await page.keyboard.press("Enter");
    await page.waitForFunction("document.getElementById('outcome').textContent.startsWith('done')", null, {
      timeout: hangGuard(45_000),
    });
    // Folded in from the studio's JSON: the same page, never reloaded.
    expect(Number(await page.locator("body").getAttribute("data-updates"))).toBeGreaterThan(0);
    await expect
      .poll(() => page.locator("#conversation").textContent(), { timeout: hangGuard(45_000) })
      .toContain("approved send_report [m1]");
    expect(await page.locator("#conversation").textContent()).toContain("the report went out");
    expect(await page.locator("#step").inputValue()).toBe(await page.locator("#step").getAttribute("max"));
    // A state the run entered first while the page was open is counted on the chart, as after a reload.
    await expect
      .poll(() => page.locator("svg.chart g.state.end > text.count").textContent(), { timeout: hangGuard(45_000) })
      .toBe("entered ×1");
    // A later update may mark one more state entered: the page then draws its chart again, with the count.
    const uncounted = () =>
      page.evaluate(
        "[...document.querySelectorAll('svg.chart g.state.visited')].filter((g) => !g.querySelector(':scope > text.count')).map((g) => g.dataset.id)",
      );
    await expect.poll(uncounted, { timeout: hangGuard(45_000) }).toEqual([]);
    expect(Number(await page.locator("body").getAttribute("data-charts"))).toBeGreaterThan(0);
    await expectNoOverlaps(RUN_PARTS);
    await keepScreenshot(page, "studio-keyboard-approved");
  });

  it("a phone approves too: the buttons are on the screen", async () => {
    await page.setViewportSize(PHONE);
    await open("/runs/paused-too");
    const approve = page.locator('button[data-act="decide"][data-approved="1"]');
    const box = await approve.boundingBox();
    expect(box).not.toBeNull();
    expect((box?.x ?? -1) >= 0 && (box?.x ?? 0) + (box?.width ?? 0) <= PHONE.width).toBe(true);
    await expectNoOverlaps(RUN_PARTS);
    await keepScreenshot(page, "studio-paused-phone");
    await page.setViewportSize(LAPTOP);
  });

  it("eval reports: cases × scorers, each case one click from its run, two reports side by side", async () => {
    await open("/");
    await page.click('a[href="/evals"]');
    await page.waitForSelector("#reports");
    expect(await page.locator("#reports tbody tr").count()).toBe(2);
    // The comparison starts from the two newest reports, the older before: never one report against itself.
    expect(await page.locator('select[name="a"]').inputValue()).toBe("1-good.json");
    expect(await page.locator('select[name="b"]').inputValue()).toBe("2-worse.json");
    await page.click('a[href="/evals/1-good.json"]');
    await page.waitForSelector("#cases");
    expect(await page.locator("#cases thead th").allTextContents()).toContain("exactAnswer");
    expect(await page.locator("#cases tbody tr").count()).toBe(3);
    expect(await page.locator("#eval-summary").textContent()).toContain("3 passed, 0 failed of 3 cases");
    await keepScreenshot(page, "studio-eval-report");
    const report = JSON.parse(readFileSync(join(evals, "1-good.json"), "utf8")) as {
      cases: { id: string; runId: string }[];
    };
    const peru = report.cases.find((c) => c.id === "peru");
    await page.click(`#cases tr[data-case="peru"] a`);
    await page.waitForSelector("body[data-ready]");
    expect(page.url()).toBe(`${studio.base}/runs/${peru?.runId}`);
    expect(await page.locator(".answer").textContent()).toContain("Lima");
    await open("/evals/compare?a=1-good.json&b=2-worse.json");
    expect(await page.locator("#eval-compare-summary").textContent()).toContain("1 regressed, 0 improved, of 3 cases");
    expect(await page.locator('tr[data-case="peru"]').getAttribute("class")).toBe("regressed");
    expect(await page.locator('tr[data-case="japan"]').getAttribute("class")).toBe("same");
    await expectNoOverlaps([".studio-bar > *", "#compare-cases td"]);
    await keepScreenshot(page, "studio-eval-compare");
    await page.setViewportSize(PHONE);
    await keepScreenshot(page, "studio-eval-compare-phone");
    expect(await page.evaluate("document.body.scrollWidth <= window.innerWidth + 1")).toBe(true);
    await page.setViewportSize(LAPTOP);
  });

  it("an eval report written by eval --html is the studio's page of it, standing alone: each run a link to its log", async () => {
    await page.goto(pathToFileURL(join(dir, "1-good.html")).href);
    await page.waitForSelector("#cases");
    expect(await page.locator("h1").textContent()).toBe("capitals");
    expect(await page.locator(".studio-bar").count()).toBe(0);
    expect(await page.locator("#cases thead th").allTextContents()).toContain("exactAnswer");
    expect(await page.locator("#eval-summary").textContent()).toMatch(/^3 passed, 0 failed of 3 cases · \d+ tokens$/);
    const href = await page.locator('#cases tr[data-case="peru"] a').getAttribute("href");
    expect(href).toMatch(/^runs\/peru-\S+\.jsonl$/);
    await expectNoOverlaps(["#cases td"]);
    await keepScreenshot(page, "eval-html-report");
  });

  it("refuses an eval report's name that is a path (400), an unknown one (404), a file that is not a report (409)", async () => {
    expect((await studio.get("/evals/..%2Fruns%2Fweather.jsonl")).status).toBe(400);
    expect((await studio.get("/evals/nothing.json")).status).toBe(404);
    const refused = await studio.get("/evals/not-a-report.json");
    expect(refused.status).toBe(409);
    expect(((await refused.json()) as { error: string }).error).toContain("is not an eval report");
    expect((await studio.get("/evals/compare?a=1-good.json&b=..")).status).toBe(400);
  });

  it("answers a run's update with what the page has not got, and refuses counts that are not whole numbers", async () => {
    const all = (await (await studio.get("/api/runs/weather/update?rows=0&ids=0&moves=0")).json()) as {
      rows: unknown[];
      header: { status: string };
    };
    expect(all.header.status).toBe("done");
    const rest = (await (
      await studio.get(`/api/runs/weather/update?rows=${all.rows.length - 2}&ids=0&moves=0`)
    ).json()) as {
      rows: unknown[];
    };
    expect(rest.rows).toHaveLength(2);
    expect((await studio.get("/api/runs/weather/update?rows=-1")).status).toBe(400);
    expect((await studio.get("/api/runs/weather/update?rows=1.5")).status).toBe(400);
    expect((await studio.get("/api/runs/nobody/update")).status).toBe(404);
  });

  it("serves the pages' scripts it names, and no other", async () => {
    const page = await (await studio.get("/runs/weather")).text();
    const src = /<script defer src="(\/scripts\/run\.js\?v=[0-9a-f]{16})"><\/script>/.exec(page)?.[1];
    expect(src).toBeDefined();
    const script = await studio.get(src ?? "");
    expect(script.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    expect(await script.text()).toContain("studio-panel");
    expect((await studio.get("/scripts/..%2Fmain.js")).status).toBe(404);
    expect((await studio.get("/scripts/other.js")).status).toBe(404);
  });
});
