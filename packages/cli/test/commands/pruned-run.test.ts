import { join } from "node:path";
import { continueAgent, retain, runAgent, scriptedModel } from "@agentloop/core";
import { JsonlEventStore } from "@agentloop/core/jsonl-store";
import { makeWeatherRegistry, WEATHER_TASK, weatherScript } from "@agentloop/core/testing";
import { beforeAll, describe, expect, it } from "vitest";
import { tempDir } from "../cli.js";
import { agentloop } from "../in-process.js";

// A run retain pruned, then continued: the CLI's readers take its anchor as the log's start.

const dir = tempDir();
const store = join(dir, "runs");
const log = join(store, "p1.jsonl");

beforeAll(async () => {
  const runs = new JsonlEventStore(store);
  const { registry } = makeWeatherRegistry();
  await runAgent(WEATHER_TASK, scriptedModel(weatherScript()), registry, { store: runs, runId: "p1" });
  expect(await retain(runs, { olderThan: new Date(Date.now() + 60_000) })).toEqual({ pruned: ["p1"] });
  await continueAgent("p1", "And again?", scriptedModel(weatherScript()), registry, { store: runs });
});

describe("a pruned run in the CLI", () => {
  it("show: the anchor first, with the events it stands for, then the next turn; the log's hashes checked", async () => {
    const { code, stdout, stderr } = await agentloop(["show", log, "--no-color"]);
    expect(stderr).toBe("");
    expect(code).toBe(0);
    expect(stdout).toContain("every event's hash checked");
    expect(stdout).toMatch(/#0 +run\.anchored +pruned: 9 events up to .* \(turn 1 done · steps 3 · tokens \d+\)/);
    expect(stdout).toContain("turn 2");
    expect(stdout).toMatch(/answer +It is 86 F in Pune\./);
  });

  it("list: finished, with its task and the events its log holds now", async () => {
    const { code, stdout } = await agentloop(["list", "--store", store]);
    expect(code).toBe(0);
    expect(stdout).toMatch(/p1 +\S+ \S+ +10 +done +How hot is Pune in Fahrenheit\?/);
  });

  it("replay: verifies the pruned log and replays it to its result", async () => {
    const { code, stdout, stderr } = await agentloop(["replay", log]);
    expect(stderr).toBe("");
    expect(code).toBe(0);
    expect(stdout).toContain("done");
  });

  it("show --html: the report names the anchor", async () => {
    const html = join(dir, "p1.html");
    const { code } = await agentloop(["show", log, "--html", html]);
    expect(code).toBe(0);
    const { readFileSync } = await import("node:fs");
    expect(readFileSync(html, "utf8")).toContain("run.anchored");
  });
});
