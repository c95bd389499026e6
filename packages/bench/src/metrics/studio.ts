import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import type { StoredEvent } from "@agentloop/core/store";
import { type Browser, chromium } from "playwright-core";
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

/** One studio's start, and each page opened the first time and again (the median of the later rounds). */
export interface StudioCost {
  readonly startMs: number;
  readonly list: { readonly first: PageCost; readonly again: PageCost };
  readonly run: { readonly first: PageCost; readonly again: PageCost };
}

/** A build of the CLI to measure: its name in the tables and its `dist/main.js`. */
export interface StudioBuild {
  readonly name: string;
  readonly cli: string;
}

/** The costs of each build (the median of its sessions), in the order given. */
export interface StudioCosts {
  readonly builds: readonly { readonly build: StudioBuild; readonly cost: StudioCost }[];
  readonly longEvents: number;
}

/** This checkout's CLI. */
export const THIS_CLI = join(
  dirname(createRequire(import.meta.url).resolve("@agentloop/cli/package.json")),
  "dist/main.js",
);
function writeLog(directory: string, runId: string, events: readonly StoredEvent[]): void {
  const lines = sealedFor(runId, events).map((event) => `${JSON.stringify(event)}\n`);
  writeFileSync(join(directory, `${runId}.jsonl`), lines.join(""));
}

/** Starts `agentloop studio` on `store` and resolves with its URL and the milliseconds it took to print it. */
function startStudio(cli: string, store: string): Promise<{ child: ChildProcess; url: string; ms: number }> {
  const started = performance.now();
  const child = spawn(process.execPath, [cli, "studio", "--store", store, "--port", "0"], { stdio: "pipe" });
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

const medianCost = (costs: readonly PageCost[]): PageCost => ({
  paint: median(costs.map((cost) => cost.paint)),
  ready: median(costs.map((cost) => cost.ready)),
});

/** The median of each figure over a build's sessions. */
function medianOf(costs: readonly StudioCost[]): StudioCost {
  const page = (pick: (cost: StudioCost) => { first: PageCost; again: PageCost }) => ({
    first: medianCost(costs.map((cost) => pick(cost).first)),
    again: medianCost(costs.map((cost) => pick(cost).again)),
  });
  return {
    startMs: median(costs.map((cost) => cost.startMs)),
    list: page((cost) => cost.list),
    run: page((cost) => cost.run),
  };
}

/**
 * The studio on a JSONL store of `runs` short runs and one long run, in Debian's Chromium: the
 * time from navigation to the first contentful paint and to the page being ready (every row of the
 * list drawn; the run's chart and timeline drawn): the first load, and the median of the next
 * `rounds - 1` loads (the run page is kept by the studio once made). Each build is measured in
 * `sessions` sessions of its own (a fresh studio process and browser page, nothing else of the
 * bench running), the builds taking turns and the order turned round every session, so that the
 * machine's drift hits each alike; a build's figure is the median over its sessions.
 */
export async function measureStudio(
  directory: string,
  plan: StudioPlan & { readonly sessions: number },
  builds: readonly StudioBuild[],
  progress: (line: string) => void = () => {},
): Promise<StudioCosts> {
  const store = join(directory, "studio-runs");
  mkdirSync(store, { recursive: true });
  const short = await logOf(plan.runSteps);
  for (let index = 0; index < plan.runs; index++) writeLog(store, `run-${String(index).padStart(5, "0")}`, short);
  const long = await logOf(plan.longSteps);
  writeLog(store, "long", long);
  const sessions = builds.map(() => [] as StudioCost[]);
  const browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: ["--no-sandbox"] });
  try {
    for (let session = 0; session < plan.sessions; session++) {
      const order = builds.map((_, index) => index);
      if (session % 2 === 1) order.reverse();
      for (const index of order) {
        const build = builds[index] as StudioBuild;
        const cost = await measureOnce(browser, build.cli, store, plan.rounds);
        sessions[index]?.push(cost);
        progress(
          `${build.name}, session ${session + 1}: list ${cost.list.first.paint.toFixed(0)}/${cost.list.again.paint.toFixed(0)} ms, run ${cost.run.first.paint.toFixed(0)}/${cost.run.again.paint.toFixed(0)} ms (first/again paint)`,
        );
      }
    }
  } finally {
    await browser.close();
  }
  return {
    builds: builds.map((build, index) => ({ build, cost: medianOf(sessions[index] ?? []) })),
    longEvents: long.length,
  };
}

/** One session: a fresh studio on the store and a fresh page, the list and the long run opened `rounds` times each. */
async function measureOnce(browser: Browser, cli: string, store: string, rounds: number): Promise<StudioCost> {
  const studio = await startStudio(cli, store);
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  try {
    const page = await context.newPage();
    await page.goto(studio.url);
    const base = new URL(studio.url).origin;
    const load = async (path: string) => {
      const start = performance.now();
      await page.goto(base + path, { timeout: 180_000 });
      await page.waitForSelector("body[data-ready]", { timeout: 180_000 });
      return { ready: performance.now() - start, paint: Number(await page.evaluate(PAINT)) } satisfies PageCost;
    };
    const list: PageCost[] = [];
    const run: PageCost[] = [];
    for (let round = 0; round < rounds; round++) {
      list.push(await load("/"));
      run.push(await load("/runs/long"));
    }
    return { startMs: studio.ms, list: firstAndAgain(list), run: firstAndAgain(run) };
  } finally {
    await context.close();
    const exited = new Promise((resolve) => studio.child.once("exit", resolve));
    studio.child.kill("SIGTERM");
    await exited;
  }
}
