import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { UsageError } from "../../src/cli-error.js";
import { EXIT_CODE_HELP, EXIT_CODES } from "../../src/exit-codes.js";
import { moneyOptionsOf } from "../../src/setup/money-flags.js";
import { cli, fixture, tempDir } from "../cli.js";
import { reportEventTexts } from "../report-page.js";
import { startStudio } from "../studio.js";

// --pricing and --cost-budget: a priced run says what it cost in run, show and list; a cost budget
// stops a run with its own exit code; every bad value is one line before the run.

const dir = tempDir();
const store = join(dir, "runs");
const weather = fixture("weather-script.json");
const base = ["run", "--tools", fixture("tools.mjs"), "--script", weather, "--store", store];

function pricingFile(name: string, pricing: unknown): string {
  const path = join(dir, name);
  writeFileSync(path, typeof pricing === "string" ? pricing : JSON.stringify(pricing));
  return path;
}

// The scripted model has no name: the key "default" prices it.
const priced = pricingFile("pricing.json", { default: { input: 3, output: 15, cachedInput: 0.3, cacheWrite: 3.75 } });

describe("agentloop run --pricing", () => {
  it("prints the run's cost, and show and list carry it", async () => {
    const ran = await cli([...base, "--run-id", "priced", "--pricing", priced, "How hot is Pune?"]);
    expect(ran.stderr).toBe("");
    expect(ran.code).toBe(EXIT_CODES.done);
    expect(ran.stdout).toMatch(/^cost {5}\$0\.\d+$/m);
    const shown = await cli(["show", join(store, "priced.jsonl"), "--no-color"]);
    expect(shown.stdout).toMatch(/limits {3}\d+ steps, \d+ tokens, priced/);
    expect(shown.stdout).toMatch(/done · steps \d+ · tokens \d+ · cost \$0\.\d+/);
    const listed = await cli(["list", "--store", store, "--no-color"]);
    expect(listed.stdout).toMatch(/status +cost {2}task/);
    expect(listed.stdout).toMatch(/priced .* done +\$0\.\d+ {2}How hot is Pune\?/);
  });

  it("--cost-budget stops the run before a call that could pass it, with its own exit code", async () => {
    const ran = await cli([...base, "--run-id", "capped", "--pricing", priced, "--cost-budget", "0.001", "How hot?"]);
    expect(ran.stderr).toBe("");
    expect(ran.code).toBe(EXIT_CODES.cost_budget);
    expect(ran.stdout).toMatch(/^result {3}cost_budget · steps 1 /m);
    const cost = Number(/^cost {5}\$(\S+)$/m.exec(ran.stdout)?.[1]);
    expect(cost).toBeGreaterThan(0);
    expect(cost).toBeLessThanOrEqual(0.001);
    expect(EXIT_CODE_HELP).toContain("12   cost_budget: the next call would not have fit in --cost-budget");
  });

  it("a provider that bills past --cost-budget: run, show, the report and the studio say by how much", async () => {
    // The guide's example: 20,000 prompt tokens a call at $2 / $8 per 1M; the first call ($0.0442)
    // surprises a budget of $0.01, and the count keeps the second from being made.
    const script = join(dir, "dear.json");
    const usage = { inputTokens: 20_000, outputTokens: 525 };
    const ask = { content: "", toolCalls: [{ id: "c1", name: "get_weather", args: { city: "Pune" } }], usage };
    writeFileSync(script, JSON.stringify([ask, { content: "Hot.", toolCalls: [], usage }]));
    const pricing = pricingFile("two-eight.json", { default: { input: 2, output: 8 } });
    const args = ["run", "--tools", fixture("tools.mjs"), "--script", script, "--store", store, "--run-id", "dear"];
    const ran = await cli([...args, "--pricing", pricing, "--cost-budget", "0.01", "How hot?"]);
    expect(ran.code).toBe(EXIT_CODES.cost_budget);
    expect(ran.stdout).toMatch(/^result {3}cost_budget · steps 1 · tokens 20525 /m);
    expect(ran.stdout).toMatch(/^cost {5}\$0\.0442 \(\$0\.0342 over the budget\)$/m);
    const said = "cost_budget · steps 1 · tokens 20525 · cost $0.0442 ($0.0342 over the budget)";
    const shown = await cli(["show", join(store, "dear.jsonl"), "--no-color"]);
    expect(shown.stdout).toContain(said);
    const report = join(dir, "dear.html");
    await cli(["show", join(store, "dear.jsonl"), "--html", report]);
    expect(reportEventTexts(readFileSync(report, "utf8"))).toContain(`finished: ${said}`);
    const studio = await startStudio(["--store", store]);
    const page = await studio.get("/runs/dear");
    expect(reportEventTexts(await page.text())).toContain(`finished: ${said}`);
  });

  it("refuses a bad --pricing or --cost-budget in one line, before the run", async () => {
    const ran = await cli([...base, "--run-id", "bad", "--pricing", priced, "--cost-budget=-1", "How hot?"]);
    expect(ran.code).toBe(EXIT_CODES.usage);
    expect(ran.stderr.trim()).toBe("agentloop: --cost-budget must be USD, a number 0 or more such as 0.50; got '-1'");
    expect(existsSync(join(store, "bad.jsonl"))).toBe(false);
  });

  it.each([
    [{ "cost-budget": "1" }, "--cost-budget needs --pricing <file.json>: the price of each model the run calls"],
    [
      { pricing: priced, "cost-budget": "NaN" },
      "--cost-budget must be USD, a number 0 or more such as 0.50; got 'NaN'",
    ],
    [
      { pricing: priced, "cost-budget": "1e400" },
      "--cost-budget must be USD, a number 0 or more such as 0.50; got '1e400'",
    ],
    [
      { pricing: pricingFile("negative.json", { default: { input: -3, output: 15 } }) },
      `negative.json: pricing["default"].input must be USD per 1M tokens, a finite number 0 or more; got -3`,
    ],
    [
      { pricing: pricingFile("nan.json", '{ "default": { "input": 3, "output": "NaN" } }') },
      `nan.json: pricing["default"].output must be USD per 1M tokens, a finite number 0 or more; got the string "NaN"`,
    ],
    [{ pricing: pricingFile("broken.json", "{ not json") }, "broken.json is not JSON"],
    [{ pricing: join(dir, "missing.json") }, "--pricing: cannot read"],
  ])("moneyOptionsOf refuses %j in one line", (values, message) => {
    expect(() => moneyOptionsOf(values)).toThrow(UsageError);
    expect(() => moneyOptionsOf(values)).toThrow(message);
  });

  it("refuses a cost budget when the model has no price, in one line, before the run", async () => {
    const named = pricingFile("named.json", { "gpt-5": { input: 1, output: 2 } });
    const ran = await cli([...base, "--run-id", "unpriced", "--pricing", named, "--cost-budget", "1", "How hot?"]);
    expect(ran.code).not.toBe(EXIT_CODES.done);
    expect(ran.stderr).toContain(
      'costBudget needs a price for every model the run may call, and pricing has none (nor a "default") for (unnamed model)',
    );
    expect(existsSync(join(store, "unpriced.jsonl"))).toBe(false);
  });

  it("says once that the cost is unknown when the model has no price", async () => {
    const named = pricingFile("named-only.json", { "gpt-5": { input: 1, output: 2 } });
    const ran = await cli([...base, "--run-id", "unknown-cost", "--pricing", named, "How hot?"]);
    expect(ran.code).toBe(EXIT_CODES.done);
    expect(ran.stdout.match(/cost {5}unknown: no price for \(unnamed model\)/g)).toHaveLength(1);
  });
});
