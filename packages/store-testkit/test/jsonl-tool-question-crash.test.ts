import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { JsonlEventStore } from "@agentloop/core/jsonl-store";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type LineChild, startLineChild } from "../src/processes/line-child.js";

// A question a running tool asked, waiting across real processes (fixtures/tool-question-child.mjs,
// on the BUILT core): the process that asked is SIGKILLed while the question waits and a new one
// answers it; and two processes answer the same waiting question at the same instant.

const CHILD = join(import.meta.dirname, "..", "fixtures", "tool-question-child.mjs");
const TRIALS = 4;

function startChild(env: NodeJS.ProcessEnv): LineChild {
  return startLineChild([process.execPath, CHILD], env);
}

describe("a question a running tool asked, across processes killed with SIGKILL and raced", () => {
  const directory = mkdtempSync(join(tmpdir(), "agentloop-tool-question-"));
  const path = join(directory, "runs");
  const env = { ...process.env, QUESTION_DIR: directory };
  const children: LineChild[] = [];
  beforeAll(() => {
    children.push(startChild(env), startChild(env), startChild(env), startChild(env));
  });
  afterAll(() => {
    for (const child of children) child.kill();
    rmSync(directory, { recursive: true, force: true });
  });
  const bookings = (runId: string): { city: string }[] => {
    const file = join(directory, `${runId}-bookings.jsonl`);
    if (!existsSync(file)) return [];
    return readFileSync(file, "utf8")
      .trim()
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line));
  };
  const read = (runId: string) => new JsonlEventStore(path).read(runId);

  it("killed right after the tool asked (before the pause is returned): a new process answers it, the call is made again and books once", async () => {
    const runId = "killed-asking";
    const victim = children[2] as LineChild;
    expect(await victim.ask("kill-after 4")).toBe("armed");
    void victim.ask(`start ${path} ${runId}`);
    expect(await victim.exited).toBe("SIGKILL");
    expect((await read(runId)).map((event) => event.type)).toEqual([
      "run.started",
      "model.replied",
      "tool.started",
      "tool.asked",
    ]);
    expect(await (children[0] as LineChild).ask(`answer ${path} ${runId} {"city":"Pune"}`)).toBe(
      'done done {"booked":"Pune"}',
    );
    expect(bookings(runId).map((entry) => entry.city)).toEqual(["Pune"]);
    const log = await read(runId);
    expect(log.filter((event) => event.type === "tool.started")).toHaveLength(2);
    expect(log.at(-1)).toMatchObject({ type: "run.finished", outcome: { status: "done" } });
  });

  it("killed right after the answer was logged: the same answer again makes the call, another answer is refused", async () => {
    const runId = "killed-answered";
    expect(await (children[0] as LineChild).ask(`start ${path} ${runId}`)).toBe("paused awaiting_input");
    const dying = children[3] as LineChild;
    expect(await dying.ask("kill-after 5")).toBe("armed");
    void dying.ask(`answer ${path} ${runId} {"city":"Pune"}`);
    expect(await dying.exited).toBe("SIGKILL");
    expect((await read(runId)).at(-1)).toMatchObject({ type: "question.answered", callId: "b1" });
    expect(await (children[1] as LineChild).ask(`answer ${path} ${runId} {"city":"Delhi"}`)).toMatch(
      /^refused RangeError: run 'killed-answered': call 'b1' waits for no answer/,
    );
    expect(await (children[1] as LineChild).ask(`answer ${path} ${runId} {"city":"Pune"}`)).toBe(
      'done done {"booked":"Pune"}',
    );
    expect(bookings(runId).map((entry) => entry.city)).toEqual(["Pune"]);
    expect((await read(runId)).filter((event) => event.type === "question.answered")).toHaveLength(1);
  });

  it(`two processes answering one waiting question at the same instant, ${TRIALS} times: one answer is taken, the other refused`, async () => {
    const workers = [children[0], children[1]] as [LineChild, LineChild];
    for (let trial = 0; trial < TRIALS; trial++) {
      const runId = `race-${trial}`;
      const at = `trial ${trial}`;
      expect(await (workers[trial % 2] as LineChild).ask(`start ${path} ${runId}`), at).toBe("paused awaiting_input");
      const cities = ["Pune", "Delhi"];
      const answers = await Promise.all(
        workers.map((racer, n) => racer.ask(`answer ${path} ${runId} {"city":"${cities[n]}"}`)),
      );
      const taken = answers.findIndex((answer) => answer.startsWith("done done"));
      expect(taken, `${at}: ${answers.join(" | ")}`).toBeGreaterThanOrEqual(0);
      expect(answers[taken], at).toBe(`done done {"booked":"${cities[taken]}"}`);
      expect(answers[1 - taken], at).toMatch(
        /^refused (EventLogError: run '.*' is being written elsewhere|RangeError: .*waits for no answer)/,
      );
      const log = await read(runId);
      expect(
        log.filter((event) => event.type === "question.answered"),
        at,
      ).toMatchObject([{ answer: { city: cities[taken] } }]);
      expect(bookings(runId), at).toHaveLength(1);
    }
  });
});
