import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { hangGuard } from "../../../../hang-guard.js";
import { replayRun } from "../../src/index.js";
import { JsonlEventStore } from "../../src/stores/index.js";

// slow: it kills a process at every event of an agent tree.

// kill -9 with children in flight: fixtures/agent-crash-child.mjs runs a parent whose reply calls two
// agent tools at once, on the BUILT core (build first), and dies by SIGKILL right after the tree's
// Nth logged event, for every N. A new process resumes the parent: the tree ends as a run never
// killed, and nothing it had logged (a model reply, a search result) is asked for or run again.

const CHILD = join(import.meta.dirname, "..", "fixtures", "agent-crash-child.mjs");
const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function spawnChild(mode: "run" | "resume", dir: string, killAfter: number | "never", counts: string) {
  return spawnSync(process.execPath, [CHILD, mode, dir, String(killAfter), counts], {
    encoding: "utf8",
    timeout: hangGuard(45_000),
  });
}

function lines(file: string): string[] {
  return existsSync(file) ? readFileSync(file, "utf8").trim().split("\n").filter(Boolean) : [];
}

/** What the logs hold: model replies as `ask <who>:<step>`, search results as `search <q>`. */
async function logged(store: JsonlEventStore): Promise<Set<string>> {
  const work = new Set<string>();
  for (const { runId } of await store.list()) {
    const events = await store.read(runId);
    const [started] = events;
    const who = started?.type === "run.started" && started.parent !== undefined ? started.settings.task : "parent";
    let step = 0;
    for (const event of events) {
      if (event.type === "model.replied") work.add(`ask ${who}:${step++}`);
      if (event.type === "tool.finished" && event.childRunId === undefined)
        work.add(`search ${who}-${event.callId.slice(1)}`);
    }
  }
  return work;
}

describe("kill -9 with children in flight (JSONL store, real processes)", () => {
  it(
    "resumes the tree from its logs after a SIGKILL at every event, doing nothing logged again",
    async () => {
      const built = join(import.meta.dirname, "..", "..", "dist", "run", "api", "agent-tool.js");
      expect(
        existsSync(built),
        "packages/core/dist has no agentTool: run `pnpm --filter @agentloop/core build` first",
      ).toBe(true);
      const cleanDir = mkdtempSync(join(tmpdir(), "agent-crash-"));
      dirs.push(cleanDir);
      const clean = spawnChild("run", cleanDir, "never", join(cleanDir, "counts"));
      expect(clean.status, clean.stderr).toBe(0);
      const expected = JSON.parse(clean.stdout) as {
        status: string;
        answer: string;
        tokens: number;
        messages: unknown[];
      };
      const total = Number(clean.stderr.trim());
      expect(expected.status).toBe("done");
      expect(total).toBeGreaterThan(20);
      for (let killAfter = 1; killAfter < total; killAfter++) {
        const dir = mkdtempSync(join(tmpdir(), "agent-crash-"));
        dirs.push(dir);
        const killed = spawnChild("run", dir, killAfter, join(dir, "first"));
        expect(killed.signal, `run killed after ${killAfter}`).toBe("SIGKILL");
        const work = await logged(new JsonlEventStore(dir));
        const resumed = spawnChild("resume", dir, "never", join(dir, "again"));
        expect(resumed.status, `resume after ${killAfter}: ${resumed.stderr}`).toBe(0);
        const result = JSON.parse(resumed.stdout) as typeof expected;
        expect({ ...result, runId: undefined }, `after ${killAfter}`).toEqual({ ...expected, runId: undefined });
        expect(
          lines(join(dir, "again")).filter((line) => work.has(line)),
          `done again after ${killAfter}`,
        ).toEqual([]);
        const store = new JsonlEventStore(dir);
        for (const runId of ["p", "p.r1", "p.r2"]) {
          expect(replayRun(await store.read(runId)).result?.status).toBe("done");
        }
      }
    },
    hangGuard(300_000),
  );
});
