import { join } from "node:path";
import { hangGuard } from "@agentloop/store-testkit/servers";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { keepScreenshot, launchChromium, overlapsOf } from "../browser.js";
import { fixture, tempDir } from "../cli.js";
import { agentloop } from "../in-process.js";
import { readEvents } from "../logs.js";
import { type Studio, startStudio } from "../studio.js";

// A parent whose `research` call runs a mail agent as its child run `tree.r1`; the child's
// `send_email` (call e1) waits for a decision, and so the whole tree waits.
const store = join(tempDir(), "runs");
const tools = fixture("agent-tools.mjs");
const script = fixture("agent-script.json");
let studio: Studio;
let browser: Browser | undefined;

afterAll(async () => {
  await browser?.close();
});

beforeAll(async () => {
  const ran = await agentloop([
    "run",
    "--tools",
    tools,
    "--script",
    script,
    "--store",
    store,
    "--run-id",
    "tree",
    "Email ana.",
  ]);
  expect(ran.code).toBe(5);
  studio = await startStudio(["--store", store, "--tools", tools, "--script", script]);
}, hangGuard(60_000));

type Row = { runId: string; status: string };
const rows = async () => (await (await studio.get("/api/runs")).json()) as Row[];
const statusOf = async (runId: string) => (await rows()).find((row) => row.runId === runId)?.status;

describe("agentloop studio: a tree of runs", () => {
  it("offers the child's waiting call on the parent's page, by its chained id, and only there", async () => {
    const parent = await (await studio.get("/runs/tree")).text();
    expect(parent).toContain('data-call="r1/e1" data-approved="1"');
    // The child run is a link to its page, under the call that ran it.
    expect(parent).toContain('→ child run <a href="/runs/tree.r1">tree.r1</a>');
    const child = await (await studio.get(`/runs/${encodeURIComponent("tree.r1")}`)).text();
    expect(child).not.toContain('data-act="decide"');
    expect(child).toContain("send_email [r1/e1] waits: decide it from");
    expect(child).toContain('<a href="/runs/tree">tree</a>');
  });

  it("refuses a decision posted to the child itself, naming the run and the chained id to decide from", async () => {
    // Resuming the child alone would finish it and leave its parent waiting for a result it never hears.
    const answer = await studio.post(`/api/runs/${encodeURIComponent("tree.r1")}/decisions`, {
      callId: "e1",
      approved: true,
    });
    expect(answer.status).toBe(409);
    expect(((await answer.json()) as { error: string }).error).toBe(
      "run 'tree.r1' is run by call 'r1' of run 'tree': decide on 'r1/e1' from there, which resumes the whole tree",
    );
    expect(await statusOf("tree.r1")).toBe("awaiting_approval");
  });

  it("resumes the whole tree from the parent's page in Chromium: the child's call runs once and both runs end", async () => {
    browser = await launchChromium();
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await page.goto(studio.url);
    await page.waitForSelector("body[data-ready]");
    expect(await page.locator("#runs").textContent()).toContain("child of tree (call r1)");
    await keepScreenshot(page, "studio-tree-list");
    await page.goto(`${studio.base}/runs/tree`);
    await page.waitForSelector("body[data-ready]");
    for (const selector of [".studio-bar > *", "#timeline > li", "#runs td"])
      expect(await overlapsOf(page, selector)).toEqual([]);
    await keepScreenshot(page, "studio-tree-paused");
    await page.click('button[data-act="decide"][data-call="r1/e1"][data-approved="1"]');
    await page.waitForFunction("document.getElementById('outcome').textContent.startsWith('done')", null, {
      timeout: hangGuard(45_000),
    });
    await keepScreenshot(page, "studio-tree-approved");
    await expect.poll(() => statusOf("tree"), { timeout: hangGuard(45_000) }).toBe("done");
    expect(await statusOf("tree.r1")).toBe("done");
    const child = readEvents(join(store, "tree.r1.jsonl"));
    expect(child.filter((event) => event.type === "approval.decided")).toMatchObject([
      { callId: "e1", approved: true },
    ]);
    expect(child.filter((event) => event.type === "tool.finished")).toHaveLength(1);
    const parent = readEvents(join(store, "tree.jsonl"));
    expect(parent.at(-1)).toMatchObject({ type: "run.finished", outcome: { status: "done" } });
  });
});
