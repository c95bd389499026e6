import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { EXIT_CODES } from "../../src/exit-codes.js";
import { fixture, tempDir } from "../cli.js";
import { agentloop, runScripted } from "../in-process.js";
import { readEvents } from "../logs.js";

const tools = fixture("tools.mjs");
const dir = tempDir();
const store = join(dir, "runs");
const script = (name: string, replies: unknown[]) => {
  writeFileSync(join(dir, name), JSON.stringify(replies));
  return join(dir, name);
};
const call = (id: string, city: string) => ({ id, name: "get_weather", args: { city } });
const parallel = script("parallel.json", [
  { content: "", toolCalls: [call("p", "Pune"), call("d", "Delhi")] },
  { content: "Pune 30, Delhi 35.", toolCalls: [] },
]);
const run = (runId: string, replies: string, ...flags: string[]) => runScripted(store, runId, replies, ...flags, "t");
const callOrder = (runId: string) =>
  readEvents(join(store, `${runId}.jsonl`)).flatMap((event) =>
    event.type === "tool.started" || event.type === "tool.finished" ? [`${event.type} ${String(event.callId)}`] : [],
  );

describe("a live run, told by its events", () => {
  it("on a terminal, prints the model's text as it streams, above the progress line", async () => {
    const writes: string[] = [];
    const ran = await agentloop(
      ["run", "--tools", tools, "--store", store, "--script", fixture("weather-script.json"), "--no-color", "t"],
      {},
      { tty: true, writes },
    );
    expect(ran.code).toBe(0);
    // The answer comes in pieces, each written as it came, after the line that starts the text.
    const start = writes.findIndex((text, index) => text === "\r\u001b[2Kassistant " && writes[index + 1] === "It ");
    expect(start).toBeGreaterThan(0);
    expect(writes.slice(start + 1, start + 7)).toEqual(["It ", "is ", "86 ", "F ", "in ", "Pune."]);
    expect(ran.stdout).toContain("assistant I will look up Pune first.\n");
    expect(ran.stdout).toContain("assistant It is 86 F in Pune.\n");
    const progress = writes.filter((text) => text.startsWith("\r\u001b[2K") && !text.includes("\n"));
    expect(progress.some((text) => /executingTools\.runningTools \(get_weather\) · step 1 of 50/.test(text))).toBe(
      true,
    );
  });

  it("elsewhere, prints plain progress lines and no streamed text", async () => {
    const ran = await run("plain", fixture("weather-script.json"));
    expect(ran.stdout).not.toContain("\r");
    expect(ran.stdout).not.toMatch(/^assistant /m);
    expect(ran.stdout).toContain("progress  executingTools.runningTools (get_weather) · step 1 of 50");
  });

  it("shows calls running at once, by tool, and runs a reply's calls together by default", async () => {
    const ran = await run("together", parallel);
    expect(ran.code).toBe(0);
    expect(ran.stdout).toContain("progress  executingTools.runningTools (get_weather ×2) · step 1 of 50");
    expect(callOrder("together").slice(0, 2)).toEqual(["tool.started p", "tool.started d"]);
    const started = readEvents(join(store, "together.jsonl"))[0] as { settings: { toolConcurrency: unknown } };
    expect(started.settings.toolConcurrency).toBeNull();
  });
});

describe("agentloop run --tool-concurrency", () => {
  it("1 runs a reply's calls one at a time, in call order", async () => {
    const ran = await run("one-by-one", parallel, "--tool-concurrency", "1");
    expect(ran.code).toBe(0);
    expect(ran.stdout).not.toContain("×2");
    expect(callOrder("one-by-one")).toEqual(["tool.started p", "tool.finished p", "tool.started d", "tool.finished d"]);
  });

  it("takes 'all', and refuses anything but a whole number from 1, naming the flag", async () => {
    expect((await run("all", parallel, "--tool-concurrency", "all", "--json")).code).toBe(0);
    for (const value of ["0", "-1", "two", "1.5"]) {
      const ran = await run(`bad-${value}`, parallel, `--tool-concurrency=${value}`);
      expect(ran).toMatchObject({ code: EXIT_CODES.usage, stdout: "" });
      expect(ran.stderr).toBe(
        `agentloop: --tool-concurrency must be a whole number, 1 or more, or 'all'; got '${value}'\n`,
      );
    }
  });
});

describe("the repeated-call guard, opt-in", () => {
  const same = script("same.json", [
    ...[1, 2, 3].map((i) => ({ content: "", toolCalls: [call(`s${i}`, "Pune")] })),
    { content: "30.", toolCalls: [] },
  ]);
  const results = (stdout: string) =>
    (JSON.parse(stdout) as { messages: { role: string; content: string }[] }).messages
      .filter((message) => message.role === "tool")
      .map((message) => (message.content.startsWith("ERROR:") ? "refused" : "ran"));

  it("is off by default: the same call three times in a row runs three times", async () => {
    const ran = await run("repeat-off", same, "--json");
    expect(ran.code).toBe(0);
    expect(results(ran.stdout)).toEqual(["ran", "ran", "ran"]);
  });

  it("--repeat-limit turns it on; --on-repeated-call stop alone turns it on at 3", async () => {
    const limited = await run("repeat-2", same, "--repeat-limit", "2", "--json");
    expect(results(limited.stdout)).toEqual(["ran", "refused", "refused"]);
    const stopped = await run("repeat-stop", same, "--on-repeated-call", "stop", "--json");
    expect(stopped.code).toBe(EXIT_CODES.repeated_call);
    expect(results(stopped.stdout)).toEqual(["ran", "ran", "refused"]);
    const settings = JSON.parse(readFileSync(join(store, "repeat-stop.jsonl"), "utf8").split("\n")[0] ?? "{}").settings;
    expect(settings).toMatchObject({ repeatLimit: 3, onRepeatedCall: "stop" });
  });
});
