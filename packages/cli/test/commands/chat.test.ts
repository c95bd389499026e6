import { copyFileSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { EXIT_CODES } from "../../src/exit-codes.js";
import { fixture, tempDir } from "../cli.js";
import { agentloop, runScripted, shellWords } from "../in-process.js";
import { readEvents, rewriteLog } from "../logs.js";

const tools = fixture("tools.mjs");
const dir = tempDir();
const store = join(dir, "runs");
/** A conversation's script: the first turn, then one reply for each later message. */
const conversation = join(dir, "conversation.json");
writeFileSync(
  conversation,
  JSON.stringify([
    { content: "", toolCalls: [{ id: "c1", name: "get_weather", args: { city: "Pune" } }] },
    { content: "It is 30 C in Pune.", toolCalls: [] },
    { content: "86 F.", toolCalls: [] },
    { content: "Still 86 F.", toolCalls: [] },
  ]),
);
const started = async (runId: string) => {
  const ran = await runScripted(store, runId, conversation, "How hot is Pune?");
  expect(ran.code).toBe(0);
  return join(store, `${runId}.jsonl`);
};
const chat = (log: string, ...rest: string[]) =>
  agentloop(["chat", log, "--tools", tools, "--script", conversation, ...rest]);

describe("agentloop chat", () => {
  it("takes a finished run further with the next message, in the same log, with progress per turn", async () => {
    const log = await started("talk");
    const ran = await chat(log, "And in Fahrenheit?");
    expect(ran.stderr).toBe("");
    expect(ran.code).toBe(EXIT_CODES.done);
    expect(ran.stdout).toContain("progress  turn 2 · callingModel · step 0 of 50 · tokens 0 of 200000");
    expect(ran.stdout).toMatch(/^progress {2}turn 2 · done · step 1 of 50 · tokens \d+ of 200000$/m);
    expect(ran.stdout).toContain("turn     2\nresult   done · steps 3");
    expect(ran.stdout).toContain("answer   86 F.");
    const types = readEvents(log).map((event) => event.type);
    expect(types.slice(-4)).toEqual(["run.finished", "user.messaged", "model.replied", "run.finished"]);
    const shown = await agentloop(["show", log]);
    expect(shown.stdout).toContain("turns 2");
    expect(shown.stdout).toContain("── turn 2: the conversation goes on with the user's next message");
    expect(shown.stdout).toMatch(/#6 +user\.messaged +turn 2\n +user {6}And in Fahrenheit\?/);
  });

  it("prints the command for the next message, which works as printed", async () => {
    const log = await started("hint");
    const first = await chat(log, "And in Fahrenheit?");
    const line = /^go on +(agentloop .*)$/m.exec(first.stdout)?.[1] ?? "";
    const [program, ...words] = shellWords(line);
    expect(program).toBe("agentloop");
    expect(words.slice(0, 2)).toEqual(["chat", log]);
    expect(words).toContain("--script");
    const next = await agentloop(words);
    expect(next.code).toBe(0);
    expect(next.stdout).toContain("turn     3");
    expect(next.stdout).toContain("answer   Still 86 F.");
  });

  it("--json prints the turn's AgentResult, with the whole conversation", async () => {
    const ran = await chat(await started("json"), "And in Fahrenheit?", "--json");
    const result = JSON.parse(ran.stdout) as { status: string; runId: string; messages: { role: string }[] };
    expect(result).toMatchObject({ status: "done", runId: "json", answer: "86 F." });
    expect(result.messages.filter((message) => message.role === "user")).toHaveLength(2);
  });

  it("goes on after a crash between a turn's end and its logged end", async () => {
    const log = await started("crashed");
    rewriteLog(log, (events) => events.slice(0, -1));
    const ran = await chat(log, "And in Fahrenheit?");
    expect(ran.code).toBe(0);
    expect(ran.stdout).toContain("progress  turn 2 · callingModel");
    const types = readEvents(log).map((event) => event.type);
    expect(types.slice(-4)).toEqual(["run.finished", "user.messaged", "model.replied", "run.finished"]);
  });

  it("a turn paused on a question prints the question and the resume line with the chat's own flags", async () => {
    const askTools = fixture("ask-tools.mjs");
    const script = join(dir, "asking-turn.json");
    writeFileSync(
      script,
      JSON.stringify([
        { content: "Hello.", toolCalls: [] },
        { content: "", toolCalls: [{ id: "q1", name: "ask_user", args: { question: "Which city?" } }] },
        { content: "", toolCalls: [{ id: "w1", name: "get_weather", args: { city: "Pune" } }] },
        { content: "It is 30 °C in Pune.", toolCalls: [] },
      ]),
    );
    const flags = ["--tools", askTools, "--script", script];
    const first = await agentloop(["run", ...flags, "--store", store, "--run-id", "asked", "Hi"]);
    expect(first.code, first.stderr).toBe(EXIT_CODES.done);
    const log = join(store, "asked.jsonl");
    const ran = await agentloop(["chat", log, ...flags, "What is the weather?"]);
    expect(ran.code, ran.stderr).toBe(EXIT_CODES.awaiting_input);
    expect(ran.stdout).toMatch(/^question q1: Which city\?$/m);
    const line = /^answer {3}(.* resume .*)$/m.exec(ran.stdout)?.[1];
    expect(line).toBe(`agentloop resume ${log} ${flags.join(" ")} --answer 'q1=<answer>'`);
    expect(ran.stdout).not.toMatch(/^go on/m);
    const resumed = await agentloop(["resume", log, ...flags, "--answer", 'q1={"city":"Pune"}']);
    expect(resumed.stderr).toBe("");
    expect(resumed.stdout).toContain("answer   It is 30 °C in Pune.");
  });

  it("refuses a run that is not finished, saying how to resume it", async () => {
    const paused = await runScripted(store, "paused", fixture("approval-script.json"), "Mail");
    expect(paused.code).toBe(EXIT_CODES.awaiting_approval);
    const log = join(store, "paused.jsonl");
    const ran = await chat(log, "Hello?");
    expect(ran).toMatchObject({ code: EXIT_CODES.usage, stdout: "" });
    expect(ran.stderr).toBe(
      `agentloop: run 'paused' is not finished (it waits for a decision): resume it first: agentloop resume ${log} --tools ${tools} --script ${conversation}\n`,
    );
    expect(readEvents(log).map((event) => event.type)).not.toContain("user.messaged");
  });

  it("refuses a log of schema 1, a missing message and missing tools, in one line", async () => {
    const old = join(dir, "old.jsonl");
    copyFileSync(join(import.meta.dirname, "..", "../../core/test/fixtures/golden/v1-happy.jsonl"), old);
    const before = readFileSync(old, "utf8");
    const schema1 = await chat(old, "Hello?");
    expect(schema1.code).toBe(EXIT_CODES.usage);
    expect(schema1.stderr).toBe(
      "agentloop: run 'old' has a log of schema 1, which cannot hold a conversation's next turn\n",
    );
    expect(readFileSync(old, "utf8")).toBe(before);
    const log = await started("refusals");
    expect((await chat(log)).stderr).toBe(
      "agentloop: 'agentloop chat' needs a log and a message in quotes; see 'agentloop chat --help'\n",
    );
    expect((await agentloop(["chat", log, "Hello?"])).stderr).toBe(
      "agentloop: 'agentloop chat' needs --tools <module> or an MCP server (--mcp, --mcp-url); see 'agentloop chat --help'\n",
    );
  });
});
