import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { hangGuard } from "../../../../hang-guard.js";
import { JsonlEventStore } from "../../src/stores/index.js";

// kill -9 around a handoff: fixtures/handoff-crash-child.mjs runs triage, which hands over to
// billing, on the BUILT core (build first), and dies by SIGKILL right after the Nth logged event,
// for every N. A new process, which builds its agents anew, resumes the run: billing answers, the
// refund is made once, and a next message in a third process goes to billing as well.

const CHILD = join(import.meta.dirname, "..", "fixtures", "handoff-crash-child.mjs");
const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function spawnChild(mode: "run" | "resume" | "continue", dir: string, killAfter: number | "never") {
  return spawnSync(process.execPath, [CHILD, mode, dir, String(killAfter), join(dir, "counts")], {
    encoding: "utf8",
    timeout: hangGuard(45_000),
  });
}

function counted(dir: string): string[] {
  const file = join(dir, "counts");
  return existsSync(file) ? readFileSync(file, "utf8").trim().split("\n").filter(Boolean) : [];
}

describe("kill -9 around a handoff (JSONL store, real processes)", () => {
  it(
    "resumes with the agent the log names after a SIGKILL at every event, and the next message goes to it too",
    async () => {
      expect(
        existsSync(join(import.meta.dirname, "..", "..", "dist", "run", "performers", "handoff.js")),
        "packages/core/dist has no handoff: run `pnpm --filter @agentloop/core build` first",
      ).toBe(true);
      const cleanDir = mkdtempSync(join(tmpdir(), "handoff-crash-"));
      dirs.push(cleanDir);
      const clean = spawnChild("run", cleanDir, "never");
      expect(clean.status, clean.stderr).toBe(0);
      expect(JSON.parse(clean.stdout)).toMatchObject({
        status: "done",
        agent: "billing",
        answer: "Order 7 is refunded.",
      });
      const events = (await new JsonlEventStore(cleanDir).read("p")).length;
      expect(events).toBeGreaterThan(6);
      for (let killAfter = 1; killAfter < events; killAfter++) {
        const dir = mkdtempSync(join(tmpdir(), "handoff-crash-"));
        dirs.push(dir);
        const killed = spawnChild("run", dir, killAfter);
        expect(killed.signal, `killed after ${killAfter}`).toBe("SIGKILL");
        const resumed = spawnChild("resume", dir, "never");
        expect(resumed.status, resumed.stderr).toBe(0);
        expect(JSON.parse(resumed.stdout), `killed after ${killAfter}`).toMatchObject({
          status: "done",
          agent: "billing",
          answer: "Order 7 is refunded.",
        });
        const work = counted(dir);
        // The refund ran once; triage answered once; billing was never asked the same step twice once it was logged.
        expect(
          work.filter((line) => line === "refund 7"),
          `killed after ${killAfter}`,
        ).toHaveLength(1);
        expect(work.filter((line) => line.startsWith("ask triage")).length).toBeLessThanOrEqual(2);
        const next = spawnChild("continue", dir, "never");
        expect(next.status, next.stderr).toBe(0);
        expect(JSON.parse(next.stdout)).toMatchObject({ status: "done", agent: "billing", answer: "You are welcome." });
        expect(counted(dir).filter((line) => line === "ask triage:2")).toHaveLength(0);
      }
    },
    hangGuard(240_000),
  );
});
