import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import type { EventStore, RunLock } from "@agentloop/core";
import { afterAll, describe, expect, it } from "vitest";
import { logError } from "../store-contract.js";
import { type ChildStoreOptions, type LineChild, startLineChild } from "./line-child.js";

// One writer per run, across real processes: fixtures/lock-child.mjs holds a store's lock for the
// parent, on the BUILT packages (build first). run-locks.test.ts runs the suite on the JSONL
// store; packages/sqlite on SQLite.

const CHILD = join(import.meta.dirname, "..", "..", "fixtures", "lock-child.mjs");

/** The store under test, as the children and the parent open it: `childEnv` holds `LOCK_STORE` for the child. */
export interface LockSuiteOptions extends ChildStoreOptions {
  /** Leaves a lock on `runId` as a process that died without releasing it would (`pid` is dead). */
  plantStaleLock(path: string, runId: string, pid: number): void | Promise<void>;
  /**
   * How a holder's death is told: `process` (default), by its pid on this host, boot and PID
   * namespace, so that a holder in another namespace is never taken over; `session`, by the
   * server, which frees the lock when the holder's connection ends, wherever it ran.
   */
  readonly liveness?: "process" | "session";
}

/** Starts a lock child, through `wrapper` (a command that runs the rest of its arguments) if given. */
function startChild(env: Readonly<Record<string, string>>, wrapper: readonly string[] = []): LineChild {
  return startLineChild([...wrapper, process.execPath, CHILD], { ...process.env, ...env });
}

/** The id of a process that has ended and was reaped. */
function deadPid(): number {
  const { pid } = spawnSync("true");
  if (pid === undefined) throw new Error("no child process");
  return pid;
}

// A PID namespace of its own, as a container has (root only): --kill-child ends it with the wrapper.
const UNSHARE = ["unshare", "--pid", "--fork", "--mount-proc", "--kill-child"];

/** Runs the child in a new PID namespace as its pid `pid` (its namespace's first pids go to the shell). */
function inNamespaceAs(pid: number): string[] {
  // A shell's background job reads /dev/null: hand it the real stdin through fd 3.
  const script = `echo ${pid - 1} > /proc/sys/kernel/ns_last_pid; exec 3<&0; "$0" "$1" <&3 & wait`;
  return [...UNSHARE, "sh", "-c", script];
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The lock tests with real processes on one store; `label` names it in the suite's title. */
export function describeLockProcesses(label: string, options: LockSuiteOptions): void {
  /**
   * Acquires a run whose holder was killed: at once where a dead pid tells it; where the server
   * tells it, once the server has seen the holder's connection close (refused until then).
   */
  const takeOver = async (store: EventStore, runId: string): Promise<RunLock> => {
    if (store.acquire === undefined) throw new Error("the store has no acquire");
    for (let tries = 0; ; tries++) {
      try {
        return await store.acquire(runId);
      } catch (error) {
        if (options.liveness !== "session" || tries >= 500) throw error;
        await sleep(20);
      }
    }
  };

  describe(`one writer per run, across processes (${label})`, () => {
    const directory = mkdtempSync(join(tmpdir(), "agentloop-locks-"));
    const path = options.storePath(directory);
    const children: LineChild[] = [];
    const start = (wrapper: readonly string[] = []) => {
      const child = startChild(options.childEnv, wrapper);
      children.push(child);
      return child;
    };
    afterAll(async () => {
      await Promise.all(children.map((child) => child.kill()));
      rmSync(directory, { recursive: true, force: true });
    });

    it("refuses the run while a live process holds it, and takes it over once that process was SIGKILLed", async () => {
      const holder = start();
      expect(await holder.ask(`acquire ${path} killed`)).toBe("ok");
      const store = options.openStore(path);
      try {
        const refused = await logError(store.acquire?.("killed") ?? Promise.resolve());
        expect(refused.message).toContain(`run 'killed' is being written elsewhere: by process ${holder.pid} on host`);
        await holder.kill();
        const lock = await takeOver(store, "killed");
        expect(lock.runId).toBe("killed");
        const again = start();
        expect(await again.ask(`acquire ${path} killed`)).toMatch(/^refused EventLogError: .*being written elsewhere/);
        await lock?.release();
        expect(await again.ask(`acquire ${path} killed`)).toBe("ok");
        expect(await again.ask("release")).toBe("released");
      } finally {
        await store.close?.();
      }
    });

    it("many processes taking over one stale lock at the same instant: exactly one wins, every time", async () => {
      const racers = [start(), start(), start(), start()];
      await Promise.all(racers.map((racer) => racer.ask("release"))); // loaded and listening
      for (let trial = 0; trial < 25; trial++) {
        const runId = `stale-${trial}`;
        await options.plantStaleLock(path, runId, deadPid());
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

    // A new PID namespace needs root (CI runs as root).
    const rootOnly = it.skipIf(process.getuid?.() !== 0);

    if (options.liveness === "session") {
      rootOnly(
        "refuses a run held in another PID namespace while its holder lives, and takes it over once that holder was killed",
        async () => {
          const free = deadPid();
          const holder = start(inNamespaceAs(free));
          expect(await holder.ask(`acquire ${path} contained`)).toBe("ok");
          expect(await holder.ask("pid")).toBe(String(free));
          const store = options.openStore(path);
          try {
            const refused = await logError(store.acquire?.("contained") ?? Promise.resolve());
            expect(refused.message).toContain(`by process ${free} in PID namespace pid:[`);
            // The server, not a pid, tells that the holder is gone: its connection ended with it.
            await holder.kill();
            const lock = await takeOver(store, "contained");
            expect(lock.runId).toBe("contained");
            await lock.release();
          } finally {
            await store.close?.();
          }
        },
      );
    } else {
      rootOnly("refuses a run held in another PID namespace, even where its pid names no process here", async () => {
        const free = deadPid();
        const holder = start(inNamespaceAs(free));
        expect(await holder.ask(`acquire ${path} contained`)).toBe("ok");
        expect(await holder.ask("pid")).toBe(String(free));
        expect(isAlive(free)).toBe(false); // signal 0 from here would call the holder dead
        const store = options.openStore(path);
        try {
          for (const stage of ["held", "killed"]) {
            const refused = await logError(store.acquire?.("contained") ?? Promise.resolve());
            expect(refused.message, stage).toContain(`by process ${free} in PID namespace pid:[`);
            expect(refused.message, stage).toContain(
              "a lock from another PID namespace (another container's) is never taken over",
            );
            // Killed with its namespace, it is still out of sight: only a person can say it is gone.
            if (stage === "held") await holder.kill();
          }
        } finally {
          await store.close?.();
        }
      });

      rootOnly(
        "refuses a run held by pid 1 of another PID namespace, saying how to remove it rather than to wait",
        async () => {
          const holder = start(UNSHARE);
          expect(await holder.ask(`acquire ${path} init`)).toBe("ok");
          expect(await holder.ask("pid")).toBe("1");
          const store = options.openStore(path);
          try {
            const refused = await logError(store.acquire?.("init") ?? Promise.resolve());
            expect(refused.message).toMatch(
              /^run 'init' is being written elsewhere: by process 1 in PID namespace pid:\[\d+\] on host '[^']*' since \S+ \(.*\); a lock from another PID namespace \(another container's\) is never taken over: if no process there writes this run any more, (remove the lock file by hand|delete its row by hand)/,
            );
          } finally {
            await store.close?.();
          }
        },
      );
    }
  });
}
