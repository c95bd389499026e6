import { once } from "node:events";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { cli, cliWeatherRun, fixture, startCli, tempDir } from "../cli.js";

const CAPITALS = fixture("eval-capitals.mjs");

describe("agentloop eval", () => {
  it("runs the cases as logged runs, shows each as it finishes, prints the table and writes JSON, JUnit and HTML", async () => {
    const dir = tempDir();
    const store = join(dir, "runs");
    const out = (name: string) => join(dir, name);
    const args = ["eval", CAPITALS, "--store", store, "--json", out("r.json"), "--junit", out("r.xml")];
    const { code, stdout, stderr } = await cli([...args, "--html", out("r.html"), "--concurrency", "1"]);
    expect(code).toBe(0);
    expect(stderr.split("\n").filter(Boolean)).toEqual(["✓ france (1/3)", "✓ japan (2/3)", "✓ peru (3/3)"]);
    expect(stdout).toMatch(/^pass\s+france\s+1\s+france-\S+$/m);
    expect(stdout).toContain("capitals: 3 passed, 0 failed");
    const report = JSON.parse(readFileSync(out("r.json"), "utf8"));
    expect(report.cases.map((c: { id: string }) => c.id)).toEqual(["france", "japan", "peru"]);
    for (const c of report.cases) expect(existsSync(join(store, `${c.runId}.jsonl`))).toBe(true);
    expect(readFileSync(out("r.xml"), "utf8")).toContain(
      '<testsuite name="capitals" tests="3" failures="0" errors="0"',
    );
    const html = readFileSync(out("r.html"), "utf8");
    expect(html).toContain(`<a href="runs/${report.cases[0].runId}.jsonl">`);
  });

  it("exits 1 when a case regressed against --baseline, naming it", async () => {
    const dir = tempDir();
    const baseline = join(dir, "baseline.json");
    const first = await cli(["eval", CAPITALS, "--store", join(dir, "runs"), "--json", baseline]);
    expect(first.code).toBe(0);
    const same = await cli(["eval", CAPITALS, "--store", join(dir, "runs"), "--baseline", baseline]);
    expect(same.code).toBe(0);
    const worse = await cli(["eval", CAPITALS, "--store", join(dir, "runs"), "--baseline", baseline], {
      env: { EVAL_VARIANT: "worse" },
    });
    expect(worse.code).toBe(1);
    expect(worse.stdout).toMatch(/^FAIL\s+peru\s+0/m);
    expect(worse.stdout).toContain("regressed: peru");
  });

  it("without a baseline, exits 1 when a case failed", async () => {
    const dir = tempDir();
    const { code, stdout } = await cli(["eval", CAPITALS, "--store", dir], { env: { EVAL_VARIANT: "worse" } });
    expect(code).toBe(1);
    expect(stdout).toContain("capitals: 2 passed, 1 failed");
  });

  it("--from-store turns the runs a store kept into cases", async () => {
    const dir = tempDir();
    const production = join(dir, "production");
    expect((await cliWeatherRun(production, ["How hot is Pune in Fahrenheit?"])).code).toBe(0);
    const beside = fixture("eval-from-store.mjs");
    const { code, stdout } = await cli(["eval", beside, "--store", join(dir, "runs"), "--from-store", production]);
    expect(stdout).toMatch(/^pass\s+\S+\s+1\s+1\s+\S+$/m);
    expect(code).toBe(0);
    const since = await cli([
      "eval",
      beside,
      "--store",
      join(dir, "runs"),
      "--from-store",
      production,
      "--since",
      "2999-01-01",
    ]);
    expect(since.stdout).toContain("0 passed, 0 failed");
    expect(since.code).toBe(1);
    expect(since.stderr).toContain("no case to run: --from-store found no run that ended done since");
  });

  it("an eval file with no cases checks nothing: it says so and exits 1, so that a CI gate is not green", async () => {
    const dir = tempDir();
    const json = join(dir, "r.json");
    const { code, stderr } = await cli(["eval", CAPITALS, "--store", dir, "--json", json], {
      env: { EVAL_VARIANT: "empty" },
    });
    expect(code).toBe(1);
    expect(stderr).toContain(`no case to run: the eval file '${CAPITALS}' exports an empty list of cases`);
    expect(JSON.parse(readFileSync(json, "utf8")).cases).toEqual([]);
  });

  it("an eval file that throws on load, or lacks run, is a usage error naming it", async () => {
    const throws = await cli(["eval", fixture("eval-throws.mjs"), "--store", tempDir()]);
    expect(throws.code).toBe(2);
    expect(throws.stderr).toContain("eval-throws.mjs' failed to load: the eval file broke while loading");
    const noRun = await cli(["eval", fixture("eval-no-run.mjs"), "--store", tempDir()]);
    expect(noRun.code).toBe(2);
    expect(noRun.stderr).toContain("must export run(case, context)");
    const since = await cli(["eval", CAPITALS, "--since", "yesterday"]);
    expect(since.code).toBe(2);
    expect(since.stderr).toContain("--since needs --from-store");
  });

  it("Ctrl-C after a case finished stops cleanly: exit 130, and the partial report says it was interrupted", async () => {
    const dir = tempDir();
    const json = join(dir, "partial.json");
    const child = startCli(["eval", CAPITALS, "--store", dir, "--concurrency", "1", "--json", json], {
      EVAL_VARIANT: "hang",
    });
    let stderr = "";
    let stdout = "";
    let interrupted = false;
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
      if (interrupted || !stderr.includes("✓ france (1/3)")) return;
      interrupted = true;
      child.kill("SIGINT");
    });
    const [code] = (await once(child, "close")) as [number | null];
    expect(code).toBe(130);
    const report = JSON.parse(readFileSync(json, "utf8"));
    expect(report.interrupted).toBe(true);
    expect(report.cases.map((c: { id: string; status: string }) => [c.id, c.status])).toEqual([
      ["france", "done"],
      ["japan", "cancelled"],
    ]);
    expect(report.notRun).toBe(1);
    expect(stdout).toContain("interrupted: 1 of 3 cases not run");
  });

  it("Ctrl-C while a judge hangs cancels the judge's run: exit 130, and the partial report names the case's judge error", async () => {
    const dir = tempDir();
    const json = join(dir, "partial.json");
    const child = startCli(["eval", CAPITALS, "--store", dir, "--concurrency", "1", "--json", json], {
      EVAL_VARIANT: "judge-hang",
    });
    onTestFinished(() => {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    });
    let stderr = "";
    let interrupted = false;
    child.stdout.resume();
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
      if (interrupted || !stderr.includes("judging Capital of France?")) return;
      interrupted = true;
      child.kill("SIGINT");
    });
    const [code] = (await once(child, "close")) as [number | null];
    expect(code).toBe(130);
    const report = JSON.parse(readFileSync(json, "utf8"));
    expect(report.interrupted).toBe(true);
    expect(report.notRun).toBe(2);
    expect(report.cases).toMatchObject([
      { id: "france", status: "done", passed: false, scores: { exactAnswer: 1, judge: 0 } },
    ]);
    expect(report.cases[0].error).toMatch(/^scorer 'judge': the judge's run ended 'cancelled'/);
    expect(stderr).toContain("✗ france (1/3)");
  });
});
