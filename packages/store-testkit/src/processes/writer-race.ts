import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { type ChildStoreOptions, type LineChild, startLineChild } from "./line-child.js";

// Two real processes resume one paused run at the same instant (fixtures/race-child.mjs, on the
// BUILT packages): one proceeds, the other is refused, and the non-idempotent tool runs once.
// The winner's tool holds the run until the loser has answered, so that the loser always meets a
// run being written, however late a loaded machine lets it start: without that hold, a loser that
// started after the winner had finished met a finished run and answered "done" too.
// writer-race.test.ts runs it on the JSONL store; packages/sqlite on SQLite.

const CHILD = join(import.meta.dirname, "..", "..", "fixtures", "race-child.mjs");
const TRIALS = 30;

/** The store under test, as the children and the parent open it: `childEnv` holds `RACE_STORE` for the child. */
export type WriterRaceOptions = ChildStoreOptions;

function startChild(env: NodeJS.ProcessEnv): LineChild {
  return startLineChild([process.execPath, CHILD], env);
}

/** The race on one store; `label` names it in the suite's title. */
export function describeWriterRace(label: string, options: WriterRaceOptions): void {
  describe(`two processes resume one paused run at the same instant (${label})`, () => {
    const directory = mkdtempSync(join(tmpdir(), "agentloop-race-"));
    const executions = join(directory, "executions.jsonl");
    const release = join(directory, "release");
    const env = { ...process.env, ...options.childEnv, RACE_EXECUTIONS: executions, RACE_RELEASE: release };
    const racers = [startChild(env), startChild(env)];
    afterAll(() => {
      for (const racer of racers) racer.kill();
      rmSync(directory, { recursive: true, force: true });
    });

    it(`in ${TRIALS} trials: one proceeds, the other is refused as a second writer, the tool runs once, and the log stays whole`, async () => {
      const path = options.storePath(directory);
      const [first] = racers as [LineChild, LineChild];
      // Each racer runs once before the trials: both are warm when they race.
      for (const [n, racer] of racers.entries()) expect(await racer.ask(`start ${path} warm-${n}`)).toBe("paused");
      for (let trial = 0; trial < TRIALS; trial++) {
        const runId = `race-${trial}`;
        const at = `trial ${trial}`;
        expect(await first.ask(`start ${path} ${runId}`), at).toBe("paused");
        rmSync(release, { force: true });
        const asked = racers.map((racer) => racer.ask(`resume ${path} ${runId}`));
        // The first answer is the loser's: the winner's tool holds the run until it is released.
        const loser = await Promise.race(asked);
        expect(loser, `${at}: the first answer`).toMatch(
          new RegExp(`^refused EventLogError: run '${runId}' is being written elsewhere: by process \\d+`),
        );
        writeFileSync(release, "");
        const answers = await Promise.all(asked);
        expect(
          answers.filter((answer) => answer === "done done"),
          `${at}: ${answers.join(" | ")}`,
        ).toHaveLength(1);
        const refused = answers.find((answer) => answer !== "done done");
        expect(refused, at).toMatch(
          new RegExp(`^refused EventLogError: run '${runId}' is being written elsewhere: by process \\d+`),
        );
        const ran = existsSync(executions) ? readFileSync(executions, "utf8").trim().split("\n") : [];
        expect(ran, at).toHaveLength(trial + 1);
        const store = options.openStore(path);
        try {
          // The store reads (and checks) seqs 0..n; the tool was started once.
          const events = await store.read(runId);
          expect(
            events.map((event) => event.seq),
            at,
          ).toEqual(events.map((_, index) => index));
          expect(
            events.filter((event) => event.type === "tool.started"),
            at,
          ).toHaveLength(1);
          expect(events.at(-1), at).toMatchObject({ type: "run.finished", outcome: { status: "done" } });
        } finally {
          await store.close?.();
        }
      }
    });
  });
}
