import { execFileSync } from "node:child_process";
import { readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { hangGuard } from "@agentloop/store-testkit/servers";
import { describe, expect, it } from "vitest";
import { EXIT_CODES } from "../../src/exit-codes.js";
import { cli, fixture, tempDir } from "../cli.js";
import { agentloop, runScripted } from "../in-process.js";

const tools = fixture("tools.mjs");
const weather = fixture("weather-script.json");
const dir = tempDir();
const store = join(dir, "runs");
const run = (runId: string, ...rest: string[]) =>
  agentloop(["run", "--tools", tools, "--store", store, "--run-id", runId, ...rest]);

describe("exit codes: done 0, each other status its own code", () => {
  it.each([
    ["done", [], EXIT_CODES.done],
    ["step_limit", ["--max-steps", "2"], EXIT_CODES.step_limit],
    ["token_budget", ["--token-budget", "300"], EXIT_CODES.token_budget],
    ["repeated_call", ["--repeat-limit", "2", "--on-repeated-call", "stop"], EXIT_CODES.repeated_call],
  ] as const)("%s", async (status, flags, code) => {
    const script = status === "repeated_call" ? join(dir, "repeat.json") : weather;
    const call = { id: "r", name: "get_weather", args: { city: "Pune" } };
    writeFileSync(
      join(dir, "repeat.json"),
      JSON.stringify([0, 1, 2].map((i) => ({ content: "", toolCalls: [{ ...call, id: `r${i}` }] }))),
    );
    const ran = await run(`exit-${status}`, "--script", script, "--json", ...flags, "t");
    expect(JSON.parse(ran.stdout)).toMatchObject({ status });
    expect(ran.code).toBe(code);
  });

  it("refused is 7: the model's refusal is shown, never taken for an answer", async () => {
    const script = join(dir, "refusal.json");
    writeFileSync(
      script,
      JSON.stringify([{ content: "I cannot help with that.", toolCalls: [], finishReason: "refusal" }]),
    );
    const ran = await run("exit-refused", "--script", script, "t");
    expect(ran.code).toBe(EXIT_CODES.refused);
    expect(ran.stdout).toContain("result   refused · steps 1");
    expect(ran.stdout).toContain("answer   (none)\nrefusal  I cannot help with that.");
    const shown = await agentloop(["show", join(store, "exit-refused.jsonl")]);
    expect(shown.stdout).toMatch(/state {5}→ refused \[isRefusal\]/);
  });

  it("a provider that counts more than the budget allowed for: done, with the overrun said", async () => {
    const script = join(dir, "overrun.json");
    const usage = { inputTokens: 5000, outputTokens: 10 };
    writeFileSync(script, JSON.stringify([{ content: "Done.", toolCalls: [], usage }]));
    const ran = await run("overrun", "--script", script, "--token-budget", "1000", "t");
    expect(ran.code).toBe(EXIT_CODES.done);
    expect(ran.stdout).toContain("result   done · steps 1 · tokens 5010 (4010 over the budget)");
    const shown = await agentloop(["show", join(store, "overrun.jsonl")]);
    expect(shown.stdout).toMatch(/run\.finished +done · steps 1 · tokens 5010, 4010 over budget/);
  });

  it("awaiting_approval is 5, and the help of every running command lists the codes", async () => {
    const ran = await run("exit-paused", "--script", fixture("approval-script.json"), "Mail");
    expect(ran.code).toBe(EXIT_CODES.awaiting_approval);
    for (const command of ["run", "chat", "resume", "demo"]) {
      const help = await agentloop([command, "--help"]);
      expect(help.stdout).toContain("5    awaiting_approval");
      expect(help.stdout).toContain("3    step_limit");
    }
  });
});

describe("agentloop run options", () => {
  it("--system, --tool-timeout and --max-result-chars reach the run", async () => {
    const ran = await run(
      "opts",
      "--script",
      weather,
      "--system",
      "Answer in French.",
      "--max-result-chars",
      "12",
      "--tool-timeout",
      "500",
      "--json",
      "t",
    );
    expect(ran.code).toBe(0);
    const started = JSON.parse(readFileSync(join(store, "opts.jsonl"), "utf8").split("\n")[0] ?? "{}");
    expect(started.settings.system).toBe("Answer in French.");
    const result = JSON.parse(ran.stdout) as { messages: { role: string; content: string }[] };
    const first = result.messages.find((message) => message.role === "tool");
    expect(first?.content.length).toBeLessThan(80);
  });

  it("--approve-tool approves every call to a tool, --deny-tool denies them with --reason", async () => {
    const approved = await run(
      "allow",
      "--script",
      fixture("approval-full.json"),
      "--approve-tool",
      "send_report",
      "--json",
      "Mail",
    );
    expect(JSON.parse(approved.stdout)).toMatchObject({ status: "done", steps: 3 });
    const denied = await run(
      "deny",
      "--script",
      fixture("approval-full.json"),
      "--deny-tool",
      "send_report",
      "--reason",
      "not today",
      "--json",
      "Mail",
    );
    const messages = JSON.parse(denied.stdout).messages as { content: string }[];
    expect(messages.some((m) => m.content.includes("denied this call to send_report (not today)"))).toBe(true);
  });

  it("refuses an approval flag for a tool that needs none, and a bad value, naming the flag", async () => {
    const none = await run("x1", "--script", weather, "--approve-tool", "get_weather", "t");
    expect(none).toMatchObject({ code: 2, stdout: "" });
    expect(none.stderr).toBe("agentloop: tool 'get_weather' does not need approval (those that do: send_report)\n");
    const how = await run("x2", "--script", weather, "--on-repeated-call", "explode", "t");
    expect(how.stderr).toBe("agentloop: --on-repeated-call must be refuse or stop; got 'explode'\n");
    const limit = await run("x3", "--script", weather, "--repeat-limit", "1", "t");
    expect(limit.stderr).toContain("--repeat-limit must be a whole number, 2 or more");
  });

  it("loads a tools module written in TypeScript", async () => {
    const script = join(dir, "ts.json");
    writeFileSync(
      script,
      JSON.stringify([
        { content: "", toolCalls: [{ id: "a", name: "get_weather", args: { city: "Delhi" } }] },
        { content: "35 C.", toolCalls: [] },
      ]),
    );
    const ran = await agentloop([
      "run",
      "--tools",
      fixture("tools.ts"),
      "--script",
      script,
      "--store",
      store,
      "--json",
      "t",
    ]);
    expect(ran.stderr).toBe("");
    const result = JSON.parse(ran.stdout) as { status: string; messages: { role: string; content: string }[] };
    expect(result.status).toBe("done");
    expect(result.messages.find((m) => m.role === "tool")?.content).toBe('{"city":"Delhi","celsius":35}');
  });
});

describe("agentloop list", () => {
  it("lists the runs of a store with how each ended, as a table or JSON", async () => {
    const listing = join(dir, "listing");
    await runScripted(listing, "a-done", weather, "--json", "Weather?");
    await runScripted(listing, "b-paused", fixture("approval-script.json"), "--json", "Mail");
    const table = await agentloop(["list", "--store", listing]);
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/^run +started \(UTC\) +events +status +task$/m);
    expect(table.stdout).toMatch(/^a-done +\d{4}-\d\d-\d\d \d\d:\d\d:\d\d +12 +done +Weather\?$/m);
    expect(table.stdout).toMatch(/^b-paused .* awaiting_approval +Mail$/m);
    const json = JSON.parse((await agentloop(["list", "--store", listing, "--json"])).stdout) as {
      runId: string;
      log: string;
    }[];
    expect(json.map((r) => [r.runId, r.log])).toEqual([
      ["a-done", join(listing, "a-done.jsonl")],
      ["b-paused", join(listing, "b-paused.jsonl")],
    ]);
    expect((await agentloop(["list", "--store", join(dir, "nowhere")])).stderr).toBe(
      `agentloop: store '${join(dir, "nowhere")}' does not exist\n`,
    );
  });

  it("leaves out at once a FIFO and a link to /dev/zero named *.jsonl, with a line on stderr for each", async () => {
    const odd = join(dir, "odd");
    await runScripted(odd, "real", weather, "Weather?");
    execFileSync("mkfifo", [join(odd, "pipe.jsonl")]);
    symlinkSync("/dev/zero", join(odd, "zero.jsonl"));
    // A child process with a deadline: a FIFO opened for reading blocks the thread that opens it.
    for (const json of [[], ["--json"]]) {
      const listed = await cli(["list", "--store", odd, ...json], { timeout: hangGuard(45_000) });
      expect(listed.code).toBe(0);
      expect(listed.stderr).toBe(
        `agentloop: left out ${join(odd, "pipe.jsonl")}: it is a FIFO, not a regular file\n` +
          `agentloop: left out ${join(odd, "zero.jsonl")}: it is a character device, not a regular file\n`,
      );
      expect(listed.stdout).toMatch(json.length === 0 ? /^real +.* done +Weather\?$/m : /"runId": "real"/);
    }
  });
});

describe("agentloop fork", () => {
  it("starts a new run from a prefix with other limits; resuming it goes on", async () => {
    await run("orig", "--script", weather, "--max-steps", "2", "--json", "t");
    const forked = await agentloop([
      "fork",
      join(store, "orig.jsonl"),
      "--run-id",
      "bigger",
      "--max-steps",
      "8",
      "--json",
    ]);
    expect(forked.code).toBe(0);
    expect(JSON.parse(forked.stdout)).toEqual({
      runId: "bigger",
      log: join(store, "bigger.jsonl"),
      forkedFrom: "orig",
    });
    const resumed = await agentloop([
      "resume",
      join(store, "bigger.jsonl"),
      "--tools",
      tools,
      "--script",
      weather,
      "--json",
    ]);
    expect(JSON.parse(resumed.stdout)).toMatchObject({ status: "done", steps: 4 });
    const shown = await agentloop(["show", join(store, "bigger.jsonl")]);
    expect(shown.stdout).toContain("forked from orig at #");
  });

  it("refuses a --keep past the log, an existing run id and a bad one", async () => {
    await run("orig2", "--script", weather, "--json", "t");
    const log = join(store, "orig2.jsonl");
    expect((await agentloop(["fork", log, "--keep", "99"])).stderr).toBe(
      `agentloop: --keep 99 is more than the 12 events of '${log}'\n`,
    );
    expect((await agentloop(["fork", log, "--run-id", "orig"])).stderr).toBe(
      "agentloop: run 'orig' already exists in this store\n",
    );
    const bad = await agentloop(["fork", log, "--run-id", "../x"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--run-id '../x' is not a run id");
  });
});

describe("agentloop repair", () => {
  it("drops a torn last line, keeps the rest, and leaves a sound log alone", async () => {
    await run("torn", "--script", weather, "--json", "t");
    const log = join(store, "torn.jsonl");
    const whole = readFileSync(log, "utf8");
    writeFileSync(log, `${whole}{"seq":12,"at":"2026`);
    expect((await agentloop(["show", log])).code).toBe(2);
    const repaired = await agentloop(["repair", log]);
    expect(repaired).toEqual({ code: 0, stdout: `repaired ${log}: dropped 1 torn event at its end\n`, stderr: "" });
    expect(readFileSync(log, "utf8")).toBe(whole);
    expect((await agentloop(["repair", log])).stdout).toBe(`nothing to repair: ${log} reads as it is\n`);
  });

  it("refuses damage before the last line, in one line", async () => {
    await run("mid", "--script", weather, "--json", "t");
    const log = join(store, "mid.jsonl");
    const lines = readFileSync(log, "utf8").split("\n");
    lines[3] = "not json";
    writeFileSync(log, lines.join("\n"));
    const refused = await agentloop(["repair", log]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/^agentloop: run 'mid': line 4 of .* is not valid JSON .*\n$/);
  });
});
