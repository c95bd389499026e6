import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import type { StoredEvent } from "@agentloop/core/store";
import { chromium } from "playwright-core";
import { logOf, sealedFor } from "./event-log.js";

/** The sizes of the studio measurement. */
export interface StudioPlan {
  /** Runs in the store the list page shows. */
  readonly runs: number;
  /** Steps of each of them. */
  readonly runSteps: number;
  /** Steps of the long run whose page is opened (about three events a step). */
  readonly longSteps: number;
  readonly rounds: number;
}

/** Milliseconds from navigation to the first contentful paint and to the page being ready. */
export interface PageCost {
  readonly paint: number;
  readonly ready: number;
}

/** The studio's start, and each page opened the first time and again (the median of the later rounds). */
export interface StudioCost {
  readonly startMs: number;
  readonly list: { readonly first: PageCost; readonly again: PageCost };
  readonly run: { readonly first: PageCost; readonly again: PageCost };
  readonly longEvents: number;
}

const CLI = join(dirname(createRequire(import.meta.url).resolve("@agentloop/cli/package.json")), "dist/main.js");

function writeLog(directory: string, runId: string, events: readonly StoredEvent[]): void {
  const lines = sealedFor(runId, events).map((event) => `${JSON.stringify(event)}\n`);
  writeFileSync(join(directory, `${runId}.jsonl`), lines.join(""));
}

/** Starts `agentloop studio` on `store` and resolves with its URL and the milliseconds it took to print it. */
function startStudio(store: string): Promise<{ child: ChildProcess; url: string; ms: number }> {
  const started = performance.now();
  const child = spawn(process.execPath, [CLI, "studio", "--store", store, "--port", "0"], { stdio: "pipe" });
  return new Promise((resolve, reject) => {
    let out = "";
    child.on("close", (code) => reject(new Error(`studio exited with ${code}`)));
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      const url = /agentloop studio: (\S+)/.exec(out)?.[1];
      if (url !== undefined) resolve({ child, url, ms: performance.now() - started });
    });
  });
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;

function firstAndAgain(samples: readonly PageCost[]): { first: PageCost; again: PageCost } {
  const [first = { paint: Number.NaN, ready: Number.NaN }, ...rest] = samples;
  return {
    first,
    again: { paint: median(rest.map((sample) => sample.paint)), ready: median(rest.map((sample) => sample.ready)) },
  };
}

const PAINT = "performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? -1";

/**
 * The studio on a JSONL store of `runs` short runs and one long run, in Debian's Chromium: the
 * time from navigation to the first contentful paint and to the page being ready (every row of the
 * list drawn; the run's chart and timeline drawn): the first load, and the median of the next
 * `rounds - 1` loads (the run page is kept by the studio once made).
 */
export async function measureStudio(directory: string, plan: StudioPlan): Promise<StudioCost> {
  const store = join(directory, "studio-runs");
  mkdirSync(store, { recursive: true });
  const short = await logOf(plan.runSteps);
  for (let index = 0; index < plan.runs; index++) writeLog(store, `run-${String(index).padStart(5, "0")}`, short);
  const long = await logOf(plan.longSteps);
  writeLog(store, "long", long);
  const studio = await startStudio(store);
  const browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: ["--no-sandbox"] });
  try {
    const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    await page.goto(studio.url);
    const base = new URL(studio.url).origin;
    const load = async (path: string) => {
      const start = performance.now();
      await page.goto(base + path);
      await page.waitForSelector("body[data-ready]", { timeout: 120_000 });
      return { ready: performance.now() - start, paint: Number(await page.evaluate(PAINT)) } satisfies PageCost;
    };
    const list: PageCost[] = [];
    const run: PageCost[] = [];
    for (let round = 0; round < plan.rounds; round++) {
      list.push(await load("/"));
      run.push(await load("/runs/long"));
    }
    return { startMs: studio.ms, list: firstAndAgain(list), run: firstAndAgain(run), longEvents: long.length };
  } finally {
    await browser.close();
    studio.child.kill("SIGTERM");
  }
}
