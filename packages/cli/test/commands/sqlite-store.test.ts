import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cli, fixture, tempDir } from "../cli.js";

describe("a SQLite store (@agentloop/sqlite)", () => {
  it("keeps runs in a .db file that show, replay, resume and graph read as <file>#<runId>", async () => {
    const dir = tempDir();
    const db = join(dir, "runs.db");
    const start = ["run", "--tools", fixture("tools.mjs"), "--store", db, "--json", "How hot is Pune?"];
    const first = await cli([...start, "--script", fixture("weather-script.json"), "--run-id", "one"]);
    expect(first.stderr).toBe("");
    expect(first.code).toBe(0);
    const live = JSON.parse(first.stdout) as unknown;

    const shown = await cli(["show", db]);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain(`run one  ${db}`);
    expect(shown.stdout).toContain("answer   It is 86 F in Pune.");

    const second = await cli([...start, "--script", fixture("approval-script.json"), "--run-id", "two"]);
    expect(JSON.parse(second.stdout)).toMatchObject({ status: "awaiting_approval" });
    const ambiguous = await cli(["replay", db]);
    expect(ambiguous.code).toBe(2);
    expect(ambiguous.stderr).toBe(`agentloop: store '${db}' holds 2 runs (one, two): name one as ${db}#<runId>\n`);

    const replay = await cli(["replay", `${db}#one`, "--json"]);
    expect(JSON.parse(replay.stdout)).toEqual(live);
    const resumed = await cli([
      "resume",
      `${db}#two`,
      "--tools",
      fixture("tools.mjs"),
      "--script",
      fixture("approval-rest.json"),
      "--approve",
      "m1",
      "--json",
    ]);
    expect(JSON.parse(resumed.stdout)).toMatchObject({ status: "done", steps: 3, runId: "two" });
    const graph = await cli(["graph", "--format", "json", "--run", `${db}#two`]);
    expect(graph.stdout).toContain('"id": "agent.executingTools.awaitingDecision"');
    const missing = await cli(["show", `${db}#three`]);
    expect(missing.stderr).toBe(`agentloop: log '${db}#three' holds no run 'three'\n`);
  });
});
