import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { replayRun } from "@agentloop/core";
import type { StoredEvent } from "@agentloop/core/store";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hangGuard } from "../hang-guard.js";
import { coreDir } from "./core-dir.js";
import { assertBuilt, type BuiltPackage, type CrashStore } from "./crash-suite.js";

// Service processes that take over each other's runs (fixtures/sweep-child.mjs, on the BUILT
// packages): each sweeps the store at its start (resumeUnfinished), then starts its share of new
// runs. The first is SIGKILLed mid-run; two more start at once and sweep what it left, and one of
// them is SIGKILLed mid-run too; a fourth sweeps what that one left and starts the rest of its
// share. Every run then finishes exactly once, no tool runs twice, and every log replays.

const CHILD = join(import.meta.dirname, "..", "..", "fixtures", "sweep-child.mjs");
const CORE = coreDir();

/** The store under test, as the service processes and this one open it. */
export interface SweepKillOptions {
  /** URL of an ES module the services import: it exports `openStore(location)`, returning the store (or a promise of it). */
  readonly storeModule: string;
  /** A new, empty store's location for the scenario: a folder, a file, a connection string. */
  location(scratch: string): string | Promise<string>;
  /** Opens the store at `location` in the test's process, to read what the services wrote. */
  openStore(location: string): CrashStore | Promise<CrashStore>;
  /** Runs in the scenario (default 500). */
  readonly runs?: number;
  /** More environment for every service. */
  readonly childEnv?: Readonly<Record<string, string>>;
  /** Packages besides core whose dist/ the services load: refused when missing or older than their sources. */
  readonly builtPackages?: readonly BuiltPackage[];
}

interface ServiceExit {
  readonly pid: number;
  readonly signal: NodeJS.Signals | null;
  readonly report: { swept: { resumed: string[]; skipped: string[] }; started: number; existed: number } | null;
  readonly stderr: string;
}

interface Execution {
  readonly tool: string;
  readonly run: number;
  readonly pid: number;
}

const runIdOf = (index: number) => `run-${String(index).padStart(4, "0")}`;
const waitsForApproval = (index: number) => index % 50 === 7;

/** A service over runs [from, to); SIGKILLed once `killWhen` holds of the executions, when given. */
function service(
  env: NodeJS.ProcessEnv,
  share: readonly [number, number],
  executions: () => Execution[],
  killWhen?: (mine: number) => boolean,
): Promise<ServiceExit> {
  const child = spawn(process.execPath, [CHILD], {
    env: { ...env, SWEEP_FROM: String(share[0]), SWEEP_TO: String(share[1]) },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  let gone = false;
  const exit = new Promise<ServiceExit>((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (_code, signal) => {
      gone = true;
      const line = stdout.trim().split("\n").at(-1) ?? "";
      resolve({ pid: child.pid ?? -1, signal, report: line === "" ? null : JSON.parse(line), stderr });
    });
  });
  if (killWhen !== undefined) {
    void (async () => {
      while (!gone && !killWhen(executions().filter((each) => each.pid === child.pid).length)) await sleep(5);
      if (!gone) child.kill("SIGKILL");
    })();
  }
  return exit;
}

/**
 * The sweep test on one store: `label` names it in the suite's title. The services load core's
 * dist/ (and the store's, through `storeModule`): core and every package in `builtPackages` must be
 * built from their current sources.
 */
export function describeSweepKill(label: string, options: SweepKillOptions): void {
  const runs = options.runs ?? 500;
  describe(`services sweep each other's runs at start while one is SIGKILLed mid-run, ${runs} runs (${label})`, () => {
    const scratch = mkdtempSync(join(tmpdir(), "agentloop-sweep-"));
    const file = join(scratch, "executions.jsonl");
    afterAll(() => rmSync(scratch, { recursive: true, force: true }));
    const executions = (): Execution[] =>
      existsSync(file)
        ? readFileSync(file, "utf8")
            .split("\n")
            .filter((line) => line.endsWith("}"))
            .map((line) => JSON.parse(line) as Execution)
        : [];

    let first: ServiceExit;
    let pair: ServiceExit[];
    let fourth: ServiceExit;
    let last: ServiceExit;
    let logs: Map<string, StoredEvent[]>;

    beforeAll(async () => {
      for (const built of [{ name: "@agentloop/core", dir: CORE }, ...(options.builtPackages ?? [])]) {
        assertBuilt(built);
      }
      const location = await options.location(scratch);
      const env = {
        ...process.env,
        ...options.childEnv,
        SWEEP_STORE_MODULE: options.storeModule,
        SWEEP_LOCATION: location,
        SWEEP_EXECUTIONS: file,
      };
      const half = Math.floor(runs / 2);
      // Killed a third of the way in, with runs in flight: what it left is cut at many places.
      first = await service(env, [0, runs], executions, (mine) => mine >= Math.floor(runs / 3));
      // Two at once, each sweeping at start; the second dies mid-run in its own share.
      pair = await Promise.all([
        service(env, [0, half], executions),
        service(env, [half, runs], executions, (mine) => mine >= Math.floor(runs / 3) + 10),
      ]);
      fourth = await service(env, [half, runs], executions);
      last = await service(env, [0, 0], executions);
      const store = await options.openStore(location);
      try {
        logs = new Map();
        for (let index = 0; index < runs; index++) logs.set(runIdOf(index), await store.read(runIdOf(index)));
      } finally {
        await store.close?.();
      }
    }, hangGuard(600_000));

    it("the first and one of the pair died by SIGKILL; the others swept and served to their end", () => {
      expect(first.signal, first.stderr).toBe("SIGKILL");
      expect(pair[1]?.signal, pair[1]?.stderr).toBe("SIGKILL");
      for (const exit of [pair[0], fourth, last]) {
        expect(exit?.report, exit?.stderr).not.toBeNull();
      }
    });

    it("the services that lived took over runs the dead ones left, each run by one of them", () => {
      const resumed = [pair[0], fourth, last].flatMap((exit) => exit?.report?.swept.resumed ?? []);
      expect(resumed.length).toBeGreaterThan(0);
      expect(new Set(resumed).size).toBe(resumed.length);
      expect(last.report?.swept.resumed).toEqual([]);
    });

    it("every run finished exactly once, but the ones that wait for an approval, which every sweep left as they were", () => {
      const waiting = [...logs.keys()].filter((_, index) => waitsForApproval(index));
      expect(last.report?.swept.skipped.sort()).toEqual(waiting);
      for (const [index, [runId, events]] of [...logs.entries()].entries()) {
        const finished = events.filter((event) => event.type === "run.finished");
        if (waitsForApproval(index)) {
          expect(finished, runId).toEqual([]);
          expect(replayRun(events, { runId }).result, runId).toBeNull();
        } else {
          expect(finished, runId).toHaveLength(1);
          expect(finished[0], runId).toMatchObject({
            outcome: { status: "done", answer: `It is 86 F in Pune (run ${index}).` },
          });
        }
      }
    });

    it("no tool ran twice, in any process; a call whose result was logged ran exactly once", () => {
      const seen = new Map<string, number>();
      for (const { tool, run } of executions()) seen.set(`${run}/${tool}`, (seen.get(`${run}/${tool}`) ?? 0) + 1);
      expect([...seen].filter(([, count]) => count > 1)).toEqual([]);
      for (const [index, [runId, events]] of [...logs.entries()].entries()) {
        for (const event of events) {
          if (event.type !== "tool.finished") continue;
          const started = events.find((each) => each.type === "tool.started" && each.callId === event.callId);
          const name = started?.type === "tool.started" ? started.name : "";
          // A call cut while it ran is answered "lost", never run again: its tool may have run once, or not at all.
          const lost = event.isError === true && String(event.content).includes("was lost");
          if (!lost) expect(seen.get(`${index}/${name}`), `${runId} ${event.callId}`).toBe(1);
        }
      }
    });

    it("every log replays to the outcome it logged", () => {
      for (const [runId, events] of logs) {
        expect(events.length, runId).toBeGreaterThan(0);
        expect(() => replayRun(events, { runId }), runId).not.toThrow();
      }
    });
  });
}
