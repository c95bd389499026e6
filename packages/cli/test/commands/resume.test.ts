import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { AgentResult } from "@agentloop/core";
import { beforeAll, describe, expect, it } from "vitest";
import { cli, fixture, tempDir } from "../cli.js";
import { readEvents, writeEvents } from "../logs.js";

const dir = tempDir();
const tools = fixture("tools.mjs");
let full: AgentResult;

/** Writes the first `keep` events of a log as a new run's log, as if the process had died there. */
function cut(from: string, to: string, keep: number): string {
  writeEvents(join(dir, to), readEvents(join(dir, from)).slice(0, keep));
  return join(dir, to);
}

beforeAll(async () => {
  const run = await cli(
    [
      "run",
      "--tools",
      tools,
      "--script",
      fixture("weather-script.json"),
      "--store",
      ".",
      "--run-id",
      "full",
      "--json",
      "How hot is Pune?",
    ],
    { cwd: dir },
  );
  expect(run.code).toBe(0);
  full = JSON.parse(run.stdout) as AgentResult;
  const rest = (JSON.parse(readFileSync(fixture("weather-script.json"), "utf8")) as unknown[]).slice(2);
  writeFileSync(join(dir, "rest.json"), JSON.stringify(rest));
});

describe("agentloop resume", () => {
  it("continues an interrupted log without asking the logged replies again, to the live run's result", async () => {
    const log = cut("full.jsonl", "cut.jsonl", 7); // up to the second tool.finished: two replies logged
    const before = await cli(["show", log]);
    expect(before.stdout).toContain("the log ends before the run did");
    const { code, stdout, stderr } = await cli(["resume", log, "--tools", tools, "--script", "rest.json", "--json"], {
      cwd: dir,
    });
    expect(stderr).toBe("");
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toEqual({ ...full, runId: "cut" });
    const replay = await cli(["replay", log, "--json"]);
    expect(JSON.parse(replay.stdout)).toEqual({ ...full, runId: "cut" });
  });

  it("tells the model a tool's result was lost when the process died while it ran", async () => {
    const log = cut("full.jsonl", "died.jsonl", 9); // ends with tool.started for c3
    const script = join(dir, "final.json");
    writeFileSync(script, JSON.stringify([{ content: "It is 86 F in Pune, I think.", toolCalls: [] }]));
    const { code, stdout } = await cli(["resume", log, "--tools", tools, "--script", script], { cwd: dir });
    expect(code).toBe(0);
    expect(stdout).toContain("result   done · steps 4");
    const show = await cli(["show", log]);
    expect(show.stdout).toContain("c_to_f = ERROR: the result of c_to_f was lost");
  });

  it("returns a finished run's result as it was, needing no model", async () => {
    const { code, stdout } = await cli(["resume", join(dir, "full.jsonl"), "--tools", tools, "--json"]);
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toEqual(full);
  });

  it("goes on with an approval, or with a denial the model is told about", async () => {
    const start = [
      "run",
      "--tools",
      tools,
      "--script",
      fixture("approval-script.json"),
      "--store",
      ".",
      "Mail the weather",
    ];
    const [approveRun, denyRun] = await Promise.all([
      cli([...start, "--run-id", "approve"], { cwd: dir }),
      cli([...start, "--run-id", "deny"], { cwd: dir }),
    ]);
    expect(approveRun.stdout).toContain("result   awaiting_approval · steps 2");
    expect(approveRun.stdout).toContain("waiting  for a decision on m1 (send_report)");
    const waiting = await cli(["show", join(dir, "approve.jsonl")]);
    expect(waiting.stdout).toContain("waiting  for a decision on m1 (send_report)");
    expect(approveRun.code).toBe(5);
    expect(denyRun.code).toBe(5);

    const approved = await cli(
      ["resume", "approve.jsonl", "--tools", tools, "--script", fixture("approval-rest.json"), "--approve", "m1"],
      { cwd: dir },
    );
    expect(approved.code).toBe(0);
    expect(approved.stdout).toContain("result   done · steps 3");
    const denied = await cli(
      [
        "resume",
        "deny.jsonl",
        "--tools",
        tools,
        "--script",
        fixture("approval-rest.json"),
        "--deny",
        "m1",
        "--reason",
        "not today",
      ],
      { cwd: dir },
    );
    expect(denied.code).toBe(0);

    const [shownApproved, shownDenied] = await Promise.all([
      cli(["show", "approve.jsonl"], { cwd: dir }),
      cli(["show", "deny.jsonl"], { cwd: dir }),
    ]);
    expect(shownApproved.stdout).toMatch(/approval\.decided +approved send_report \[m1\]/);
    expect(shownApproved.stdout).toContain('send_report = {"sent":true,"to":"ops@example.com"}');
    expect(shownDenied.stdout).toMatch(/approval\.decided +denied send_report \[m1\] \(not today\)/);
    expect(shownDenied.stdout).toContain("send_report = ERROR: the user denied this call to send_report (not today)");
    expect(shownDenied.stdout).toContain(
      "→ executingTools.nextCalls [isAwaitedDecision] → budgetCheck [allCallsAnswered]",
    );
  });
});
