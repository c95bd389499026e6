import { once } from "node:events";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { AgentResult } from "@agentloop/core";
import { beforeAll, describe, expect, it } from "vitest";
import { cli, cliWeatherRun, fixture, startCli, tempDir } from "../cli.js";
import { writeLongLog } from "../long-log.js";

const dir = tempDir();
const log = join(dir, "runs", "w1.jsonl");
const TASK = "How hot is Pune in Fahrenheit?";
let live: AgentResult;

beforeAll(async () => {
  const run = await cliWeatherRun("runs", ["--run-id", "w1", "--json", TASK], { cwd: dir });
  expect(run.stderr).toBe("");
  expect(run.code).toBe(0);
  live = JSON.parse(run.stdout) as AgentResult;
});

describe("agentloop run", () => {
  it("runs the task with the tools module and the script, and keeps the log", () => {
    expect(live).toMatchObject({ status: "done", answer: "It is 86 F in Pune.", steps: 4, runId: "w1" });
    expect(live.messages.map((message) => message.role)).toEqual([
      "system",
      "user",
      "assistant",
      "tool",
      "assistant",
      "tool",
      "assistant",
      "tool",
      "assistant",
    ]);
    const types = readFileSync(log, "utf8")
      .trim()
      .split("\n")
      .map((line) => (JSON.parse(line) as { type: string }).type);
    expect(types[0]).toBe("run.started");
    expect(types.at(-1)).toBe("run.finished");
    expect(types.filter((type) => type === "model.replied")).toHaveLength(4);
  });

  it("shows plain progress lines when stdout is not a terminal, then the outcome and the log's path", async () => {
    const { code, stdout } = await cliWeatherRun("runs", ["--max-steps", "2", TASK], { cwd: dir });
    expect(code).toBe(3);
    expect(stdout.includes("\r") || stdout.includes("\u001b[")).toBe(false);
    expect(stdout).toContain("progress  callingModel · step 0 of 2 · tokens 0 of 200000\n");
    expect(stdout).toContain("progress  stepLimit · step 2 of 2");
    expect(stdout).toContain("result   step_limit · steps 2");
    const path = /^log +(runs\/run-\d{8}-\d{6}-[0-9a-f]{4}\.jsonl)$/m.exec(stdout)?.[1];
    expect(path).toBeDefined();
    expect(existsSync(join(dir, path ?? ""))).toBe(true);
  });

  it("takes a tools module with a named register export", async () => {
    const { code, stdout } = await cli(
      [
        "run",
        "--tools",
        fixture("named-register.mjs"),
        "--script",
        fixture("approval-rest.json"),
        "--store",
        "runs",
        "--json",
        "Say hi",
      ],
      { cwd: dir },
    );
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toMatchObject({ status: "done", steps: 1 });
  });

  it("exits 5 on a pause, and 1 when the run needs a model it was not given, keeping the log", async () => {
    const args = [
      "--tools",
      fixture("tools.mjs"),
      "--store",
      "runs",
      "--run-id",
      "short",
      "--json",
      "Mail the weather",
    ];
    const paused = await cli(["run", "--script", fixture("approval-script.json"), ...args], { cwd: dir });
    expect(paused.code).toBe(5);
    expect(JSON.parse(paused.stdout)).toMatchObject({ status: "awaiting_approval", pendingApprovals: [{ id: "m1" }] });
    const resumed = await cli(
      ["resume", join("runs", "short.jsonl"), "--tools", fixture("tools.mjs"), "--approve", "m1"],
      { cwd: dir },
    );
    expect(resumed.code).toBe(1);
    expect(resumed.stderr).toMatch(
      /^agentloop: model call 3 failed: .*give --model <provider:name> or --script <file.json>; the log is kept: runs\/short\.jsonl\n$/,
    );
    const replay = await cli(["replay", join("runs", "short.jsonl"), "--json"], { cwd: dir });
    expect(JSON.parse(replay.stdout)).toMatchObject({ finished: false, state: "callingModel", steps: 2 });
  });
});

describe("agentloop replay", () => {
  it("rebuilds the same AgentResult as the live run, calling nothing", async () => {
    const { code, stdout } = await cli(["replay", log, "--json"]);
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toEqual(live);
  });

  it("prints a summary by default", async () => {
    const { code, stdout } = await cli(["replay", log]);
    expect(code).toBe(0);
    expect(stdout).toBe(`result   done · steps 4 · tokens ${live.tokens} · messages 9\nanswer   It is 86 F in Pune.\n`);
  });
});

describe("agentloop show", () => {
  it("prints the timeline: states replayed through the machine, messages, tool results, usage, the outcome", async () => {
    const { code, stdout, stderr } = await cli(["show", log]);
    expect(stderr).toBe("");
    expect(code).toBe(0);
    expect(stdout).not.toContain("\u001b[");
    expect(stdout).toContain("run w1");
    expect(stdout).toMatch(/#0 +run\.started/);
    expect(stdout).toContain("state     budgetCheck → callingModel");
    expect(stdout).toContain(
      "→ executingTools.nextCalls [hasToolCalls] → executingTools.runningTools [isAnyCallRunning]",
    );
    expect(stdout).toContain("→ budgetCheck [isLastResult] → callingModel");
    expect(stdout).toContain('assistant "I will look up Pune first."  →  get_weather({"city":"Pune"}) [c1]');
    expect(stdout).toContain(
      "tool      [c2] get_weather = ERROR: get_weather failed: Error: no weather station in 'Atlantis'",
    );
    expect(stdout).toContain("usage 310 in / 12 out");
    expect(stdout).toMatch(/#11 +run\.finished +done · steps 4/);
    expect(stdout).toContain("answer   It is 86 F in Pune.");
  });

  it("colors the timeline on request, ERROR observations in bold red, and never with --no-color or NO_COLOR", async () => {
    const colored = await cli(["show", log], { env: { FORCE_COLOR: "1" } });
    expect(colored.stdout).toContain("\u001b[31m\u001b[1mERROR: get_weather failed");
    expect(colored.stdout).toContain("\u001b[32mdone\u001b[39m");
    const [flag, env] = await Promise.all([
      cli(["show", log, "--no-color"], { env: { FORCE_COLOR: "1" } }),
      cli(["show", log], { env: { FORCE_COLOR: "1", NO_COLOR: "1" } }),
    ]);
    expect(flag.stdout).not.toContain("\u001b[");
    expect(env.stdout).toBe(flag.stdout);
  });
});

describe("a reader that stops early", () => {
  it("show piped into a reader that closes the pipe ends quietly, with no stack trace", async () => {
    const store = join(dir, "long");
    const log = writeLongLog(store, "piped", 2000);
    const child = startCli(["show", log]);
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.stdout.once("data", () => child.stdout.destroy());
    const [code] = (await once(child, "close")) as [number | null];
    expect(stderr).toBe("");
    expect(code).toBe(0);
  });
});
