import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import type { StoredEvent } from "@agentloop/core/store";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hangGuard } from "../hang-guard.js";
import { type ChildStoreOptions, type LineChild, startLineChild } from "./line-child.js";

// A question waiting across real processes (fixtures/question-child.mjs, on the BUILT packages):
// the process that asked is SIGKILLed while the question waits, or while the step after the
// answer runs, and a new process finishes the run with nothing run twice; and two processes
// answering the same waiting question at the same instant: one answer is taken, the other is
// refused as a second writer. question-crash.test.ts runs it on the JSONL store; packages/sqlite on SQLite.

const CHILD = join(import.meta.dirname, "..", "..", "fixtures", "question-child.mjs");
const TRIALS = 10;

/** The store under test, as the children and the parent open it: `childEnv` holds `QUESTION_STORE` for the child. */
export type QuestionCrashOptions = ChildStoreOptions;

function startChild(env: NodeJS.ProcessEnv): LineChild {
  return startLineChild([process.execPath, CHILD], env);
}

function lines(file: string): { pid: number; city?: string; step?: number }[] {
  return existsSync(file)
    ? readFileSync(file, "utf8")
        .trim()
        .split("\n")
        .filter(Boolean)
        .map((l) => JSON.parse(l))
    : [];
}

/** The question tests on one store; `label` names it in the suite's title. */
export function describeQuestionCrash(label: string, options: QuestionCrashOptions): void {
  describe(`a waiting question across processes killed with SIGKILL and raced (${label})`, () => {
    const directory = mkdtempSync(join(tmpdir(), "agentloop-question-"));
    const path = options.storePath(directory);
    const env = { ...process.env, ...options.childEnv, QUESTION_DIR: directory };
    const children: LineChild[] = [];
    let workers: [LineChild, LineChild];
    let victims: [LineChild, LineChild, LineChild];
    // Two that live through the file, and one for each test that kills one: all loaded at once, up front.
    beforeAll(async () => {
      children.push(...Array.from({ length: 5 }, () => startChild(env)));
      await Promise.all(children.map((child) => child.ask("kill-after none")));
      const [first, second, ...doomed] = children;
      workers = [first, second] as [LineChild, LineChild];
      victims = doomed as [LineChild, LineChild, LineChild];
    }, hangGuard(60_000));
    afterAll(() => {
      for (const child of children) child.kill();
      rmSync(directory, { recursive: true, force: true });
    });

    const bookings = (runId: string) => lines(join(directory, `${runId}-bookings.jsonl`));
    const steps = (runId: string) => lines(join(directory, `${runId}-model-calls.jsonl`)).map((line) => line.step);

    const start = (runId: string) => `start ${path} ${runId}`;
    const answer = (runId: string, city: string) => `answer ${path} ${runId} {"city":"${city}"}`;

    /** Has `victim`, armed with `arm`, take `command` and die of it by SIGKILL. */
    async function killedDuring(victim: LineChild, arm: string, command: string): Promise<void> {
      expect(await victim.ask(arm)).toBe("armed");
      void victim.ask(command);
      expect(await victim.exited).toBe("SIGKILL");
    }

    async function read(runId: string): Promise<StoredEvent[]> {
      const store = options.openStore(path);
      try {
        return await store.read(runId);
      } finally {
        await store.close?.();
      }
    }

    it("killed while the question waits (its lock left behind): a new process answers it and finishes, each step once", async () => {
      const runId = "killed-waiting";
      // The log holds the run's start and the reply that asks: the process dies before it returns the pause.
      await killedDuring(victims[0], "kill-after 2", start(runId));
      expect((await read(runId)).map((event) => event.type)).toEqual(["run.started", "model.replied"]);

      expect(await workers[0].ask(answer(runId, "Pune"))).toBe('done done {"booked":"Pune"}');
      expect(bookings(runId).map((entry) => entry.city)).toEqual(["Pune"]);
      expect(steps(runId)).toEqual([0, 1, 2]);
      const log = await read(runId);
      expect(log.filter((event) => event.type === "question.answered")).toMatchObject([{ answer: { city: "Pune" } }]);
      expect(log.at(-1)).toMatchObject({ type: "run.finished", outcome: { status: "done" } });
    });

    it("killed right after the answer was logged: the same answer again finishes the run; another answer is refused", async () => {
      const runId = "killed-answered";
      expect(await workers[0].ask(start(runId))).toBe("paused awaiting_input");
      await killedDuring(victims[1], "kill-after 3", answer(runId, "Pune"));
      expect((await read(runId)).at(-1)).toMatchObject({ type: "question.answered", callId: "q1" });

      expect(await workers[1].ask(answer(runId, "Delhi"))).toMatch(
        new RegExp(
          `^refused RangeError: run '${runId}': call 'q1' waits for no answer \\(questions that wait: none\\)$`,
        ),
      );
      expect(await workers[1].ask(answer(runId, "Pune"))).toBe('done done {"booked":"Pune"}');
      expect(bookings(runId).map((entry) => entry.city)).toEqual(["Pune"]);
      expect(steps(runId)).toEqual([0, 1, 2]);
      expect((await read(runId)).filter((event) => event.type === "question.answered")).toHaveLength(1);
    });

    it("killed while the booking after the answer runs: it is not run again, and the model is told its result was lost", async () => {
      const runId = "killed-booking";
      expect(await workers[0].ask(start(runId))).toBe("paused awaiting_input");
      const booking = victims[2];
      expect(await booking.ask("block-booking")).toBe("armed");
      void booking.ask(answer(runId, "Pune"));
      const marker = join(directory, `${runId}-booking-started`);
      while (!existsSync(marker)) await sleep(10);
      booking.kill();
      expect(await booking.exited).toBe("SIGKILL");

      expect(await workers[1].ask(`resume ${path} ${runId}`)).toMatch(
        /^done done ERROR: the result of book_room was lost/,
      );
      expect(bookings(runId)).toHaveLength(1);
      expect(steps(runId)).toEqual([0, 1, 2]);
      const log = await read(runId);
      expect(log.filter((event) => event.type === "tool.started")).toHaveLength(1);
      expect(log.filter((event) => event.type === "question.answered")).toHaveLength(1);
    });

    it(`two processes answering one waiting question at the same instant, ${TRIALS} times: one answer is taken, the other refused`, async () => {
      // The booking takes 100 ms, so the loser mostly finds the run held; on a busy machine it may
      // come after the winner ended, and is then refused as answering a question that no longer waits.
      for (let trial = 0; trial < TRIALS; trial++) {
        const runId = `race-${trial}`;
        const at = `trial ${trial}`;
        expect(await (trial % 2 === 0 ? workers[0] : workers[1]).ask(start(runId)), at).toBe("paused awaiting_input");
        const cities = ["Pune", "Delhi"];
        const answers = await Promise.all(workers.map((racer, n) => racer.ask(answer(runId, cities[n] as string))));
        const taken = answers.findIndex((answer) => answer.startsWith("done done"));
        expect(taken, `${at}: ${answers.join(" | ")}`).toBeGreaterThanOrEqual(0);
        expect(answers[taken], at).toBe(`done done {"booked":"${cities[taken]}"}`);
        expect(answers[1 - taken], at).toMatch(
          new RegExp(
            `^refused (EventLogError: run '${runId}' is being written elsewhere: by process \\d+|RangeError: run '${runId}': call 'q1' waits for no answer \\(questions that wait: none\\))`,
          ),
        );
        const log = await read(runId);
        expect(
          log.filter((event) => event.type === "question.answered"),
          at,
        ).toMatchObject([{ answer: { city: cities[taken] } }]);
        expect(
          log.map((event) => event.seq),
          at,
        ).toEqual(log.map((_, index) => index));
        expect(bookings(runId), at).toHaveLength(1);
      }
    });
  });
}
