import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { afterAll, describe, expect, it } from "vitest";
import { logError } from "../../store-testkit/src/index.js";
import type { EventStore } from "../src/index.js";

// One writer per run, across real processes: fixtures/lock-child.mjs holds a store's lock for the
// parent, on the BUILT packages (build first). run-locks.test.ts runs the suite on the JSONL
// store; packages/sqlite on SQLite.

const CHILD = join(import.meta.dirname, "fixtures", "lock-child.mjs");

/** The store under test, as the children and the parent open it. */
export interface LockSuiteOptions {
  /** `LOCK_STORE` for the child, and any more environment it needs. */
  readonly childEnv: Readonly<Record<string, string>>;
  /** Where the store lives inside a temp directory: the JSONL directory, or the SQLite file. */
  storePath(directory: string): string;
  openStore(path: string): EventStore & { close?(): void };
  /** Leaves a lock on `runId` as a process that died without releasing it would (`pid` is dead). */
  plantStaleLock(path: string, runId: string, pid: number): void;
}

interface LockChild {
  readonly pid: number;
  /** Sends one command and resolves to the child's one-line answer. */
  ask(command: string): Promise<string>;
  /** SIGKILLs it and waits until it is gone. */
  kill(): Promise<void>;
}

function startChild(env: Readonly<Record<string, string>>): LockChild {
  const child: ChildProcess = spawn(process.execPath, [CHILD], {
    env: { ...process.env, ...env },
    stdio: ["pipe", "pipe", "inherit"],
  });
  const answers: ((line: string) => void)[] = [];
  createInterface({ input: child.stdout as NodeJS.ReadableStream }).on("line", (line) => answers.shift()?.(line));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  return {
    pid: child.pid ?? -1,
    ask: (command) =>
      new Promise((resolve) => {
        answers.push(resolve);
        child.stdin?.write(`${command}\n`);
      }),
    kill: async () => {
      child.kill("SIGKILL");
      await exited;
    },
  };
}

/** The id of a process that has ended and was reaped. */
function deadPid(): number {
  const { pid } = spawnSync("true");
  if (pid === undefined) throw new Error("no child process");
  return pid;
}

/** The lock tests with real processes on one store; `label` names it in the suite's title. */
export function describeLockProcesses(label: string, options: LockSuiteOptions): void {
  describe(`one writer per run, across processes (${label})`, () => {
    const directory = mkdtempSync(join(tmpdir(), "agentloop-locks-"));
    const path = options.storePath(directory);
    const children: LockChild[] = [];
    const start = () => {
      const child = startChild(options.childEnv);
      children.push(child);
      return child;
    };
    afterAll(async () => {
      await Promise.all(children.map((child) => child.kill()));
      rmSync(directory, { recursive: true, force: true });
    });

    it("refuses the run while a live process holds it, and takes it over once that process was SIGKILLed", {
      timeout: 20_000,
    }, async () => {
      const holder = start();
      expect(await holder.ask(`acquire ${path} killed`)).toBe("ok");
      const store = options.openStore(path);
      try {
        const refused = await logError(store.acquire?.("killed") ?? Promise.resolve());
        expect(refused.message).toContain(`run 'killed' is being written elsewhere: by process ${holder.pid} on host`);
        await holder.kill();
        const lock = await store.acquire?.("killed");
        expect(lock?.runId).toBe("killed");
        const again = start();
        expect(await again.ask(`acquire ${path} killed`)).toMatch(/^refused EventLogError: .*being written elsewhere/);
        await lock?.release();
        expect(await again.ask(`acquire ${path} killed`)).toBe("ok");
        expect(await again.ask("release")).toBe("released");
      } finally {
        store.close?.();
      }
    });

    it("many processes taking over one stale lock at the same instant: exactly one wins, every time", {
      timeout: 20_000,
    }, async () => {
      const racers = [start(), start(), start(), start()];
      await Promise.all(racers.map((racer) => racer.ask("release"))); // loaded and listening
      for (let trial = 0; trial < 25; trial++) {
        const runId = `stale-${trial}`;
        options.plantStaleLock(path, runId, deadPid());
        const answers = await Promise.all(racers.map((racer) => racer.ask(`acquire ${path} ${runId}`)));
        expect(
          answers.filter((answer) => answer === "ok"),
          `trial ${trial}: ${answers.join(" | ")}`,
        ).toHaveLength(1);
        for (const answer of answers.filter((line) => line !== "ok")) {
          expect(answer).toMatch(/^refused EventLogError: run 'stale-\d+' is being written elsewhere: by process \d+/);
        }
        await Promise.all(racers.map((racer) => racer.ask("release")));
      }
    });
  });
}
