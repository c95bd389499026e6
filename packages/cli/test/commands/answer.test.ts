import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { EXIT_CODES } from "../../src/exit-codes.js";
import { fixture, tempDir } from "../cli.js";
import { agentloop } from "../in-process.js";

const TOOLS = ["--tools", fixture("ask-tools.mjs")];
const SCRIPT = ["--script", fixture("ask-script.json")];

/** A run paused on the model's question, in a store of its own. */
async function paused(): Promise<string> {
  const store = tempDir();
  const ran = await agentloop(["run", ...TOOLS, ...SCRIPT, "--store", store, "--run-id", "trip", "Weather?"]);
  expect(ran.stderr).toBe("");
  expect(ran.code).toBe(EXIT_CODES.awaiting_input);
  return join(store, "trip.jsonl");
}

describe("a run paused for the user's answer, from the command line", () => {
  it("show prints the question, the answer's shape and the resume --answer line to fill in", async () => {
    const log = await paused();
    const shown = await agentloop(["show", log]);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toContain("awaiting_input");
    expect(shown.stdout).toMatch(/^question q1: Which city\?$/m);
    expect(shown.stdout).toMatch(
      /^shape {4}\{"type":"object","properties":\{"city":\{"type":"string"\}\},"required":\["city"\]\}$/m,
    );
    const line = /^answer {3}(.*)$/m.exec(shown.stdout)?.[1];
    expect(line).toBe(`agentloop resume ${log} --tools '<module>' --model '<provider:name>' --answer 'q1=<answer>'`);
  });

  it("run itself prints the question, the answer's shape and a resume line with the run's own flags, which goes on once the answer is filled in", async () => {
    const store = tempDir();
    const ran = await agentloop(["run", ...TOOLS, ...SCRIPT, "--store", store, "--run-id", "trip", "Weather?"]);
    expect(ran.code, ran.stderr).toBe(EXIT_CODES.awaiting_input);
    expect(ran.stdout).toMatch(/^question q1: Which city\?$/m);
    expect(ran.stdout).toMatch(/^shape {4}\{"type":"object","properties":\{"city":\{"type":"string"\}\}/m);
    const log = join(store, "trip.jsonl");
    const line = /^answer {3}(.* resume .*)$/m.exec(ran.stdout)?.[1];
    expect(line).toBe(`agentloop resume ${log} ${TOOLS.join(" ")} ${SCRIPT.join(" ")} --answer 'q1=<answer>'`);
    const filled = (line ?? "").replace("'q1=<answer>'", "").split(" ").filter(Boolean).slice(1);
    const resumed = await agentloop([...filled, 'q1={"city":"Pune"}']);
    expect(resumed.stderr).toBe("");
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toContain("answer   It is 30 °C in Pune.");
  });

  it("resume --answer goes on with the answer as JSON, or as text when it is not JSON", async () => {
    const log = await paused();
    const resumed = await agentloop(["resume", log, ...TOOLS, ...SCRIPT, "--answer", 'q1={"city":"Pune"}']);
    expect(resumed.stderr).toBe("");
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toContain("answer   It is 30 °C in Pune.");
  });

  it("refuses in one line an answer for a question that does not wait, one that does not fit, and a flag without '='", async () => {
    const log = await paused();
    const stray = await agentloop(["resume", log, ...TOOLS, ...SCRIPT, "--answer", "q9=Pune"]);
    expect(stray.code).toBe(EXIT_CODES.usage);
    expect(stray.stderr).toContain("'q9' is not waiting for an answer; the questions that wait: q1");
    const bare = await agentloop(["resume", log, ...TOOLS, ...SCRIPT, "--answer", "Pune"]);
    expect(bare.code).toBe(EXIT_CODES.usage);
    expect(bare.stderr).toContain("--answer takes <callId>=<answer>; got 'Pune'");
    const misfit = await agentloop(["resume", log, ...TOOLS, ...SCRIPT, "--answer", "q1=Pune"]);
    expect(misfit.code).not.toBe(0);
    expect(misfit.stderr).toContain("the answer to 'q1' does not fit");
    // Nothing was logged: the question still waits.
    const shown = await agentloop(["show", log]);
    expect(shown.stdout).toMatch(/^question q1: Which city\?$/m);
  });
});

describe("a run paused on a question its tool asked while it ran, from the command line", () => {
  const ASKING = ["--tools", fixture("asking-tools.mjs"), "--script", fixture("asking-script.json")];

  it("show prints the tool's question under the call's id, and resume --answer makes the call again with it", async () => {
    const store = tempDir();
    const ran = await agentloop(["run", ...ASKING, "--store", store, "--run-id", "room", "Book."]);
    expect(ran.code, ran.stderr).toBe(EXIT_CODES.awaiting_input);
    const log = join(store, "room.jsonl");
    const shown = await agentloop(["show", log]);
    expect(shown.stdout).toMatch(/^question b1: Which city\?$/m);
    expect(shown.stdout).toMatch(/asked book_room \[b1\] "Which city\?"/);
    expect(shown.stdout).toMatch(/^answer {3}agentloop resume .* --answer 'b1=<answer>'$/m);
    const resumed = await agentloop(["resume", log, ...ASKING, "--answer", 'b1={"city":"Pune"}']);
    expect(resumed.stderr).toBe("");
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toContain("answer   Booked.");
  });
});
