import { copyFileSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { cli, fixture, tempDir } from "../cli.js";
import { readEvents, writeEvents } from "../logs.js";
import { sh } from "../shell.js";

// A parent whose `research` call runs a mail agent as its child run `p.r1`; the child's `send_email` waits.
const dir = tempDir();
const tools = fixture("agent-tools.mjs");
const script = fixture("agent-script.json");

beforeAll(async () => {
  const run = await cli(["run", "--tools", tools, "--script", script, "--store", ".", "--run-id", "p", "Email ana."], {
    cwd: dir,
  });
  expect(run.code).toBe(5);
});

/** A printed hint with its placeholders filled in, as a user does. */
function filled(line: string): string {
  const command = line.replace(/^\S+\s+/, "");
  return command.replace("'<module>'", tools).replace("--model '<provider:name>'", `--script ${script}`);
}

describe("a tree of runs", () => {
  it("show names the child run under the call that ran it, and the calls the tree waits on with chained ids", async () => {
    const { code, stdout } = await cli(["show", join(dir, "p.jsonl"), "--no-color"]);
    expect(code).toBe(0);
    const child = stdout.split("\n").findIndex((line) => line.includes("tool.started") && line.includes("[r1]"));
    expect(stdout.split("\n")[child + 1]).toMatch(
      new RegExp(
        `child +p\\.r1 · awaiting_approval · steps 1 · tokens \\d+ · show: .* show ${join(dir, "p.r1.jsonl")}`,
      ),
    );
    expect(stdout).toContain("waiting  for a decision on r1/e1 (send_email)");
    expect(stdout).toMatch(/approve {2}.* resume .*p\.jsonl .*--approve r1\/e1/);
    expect(stdout).toMatch(/deny {5}.* resume .*p\.jsonl .*--deny r1\/e1/);
    expect(stdout).not.toContain("the log ends before the run did");
    expect(stdout).not.toContain("the log ends here");
    expect(stdout).toContain("⏸ waiting for a decision on r1/e1 (send_email)");
  });

  it("list shows the child run under its parent, and --json names its parent and call", async () => {
    const { code, stdout } = await cli(["list", "--store", dir, "--no-color"]);
    expect(code).toBe(0);
    const rows = stdout.split("\n").slice(1, 3);
    expect(rows[0]).toMatch(/^p {2,}\d{4}-/);
    expect(rows[1]).toMatch(/^ {2}↳ p\.r1 +\d{4}-.*Email ana the capital of Peru\.$/);
    const json = await cli(["list", "--store", dir, "--json"]);
    const listed = JSON.parse(json.stdout) as { runId: string; parent?: unknown; status: string }[];
    expect(listed.map((run) => [run.runId, run.parent])).toEqual([
      ["p", undefined],
      ["p.r1", { runId: "p", callId: "r1" }],
    ]);
    // The parent is paused with its child, as show, the report and the studio say.
    expect(listed.map((run) => [run.runId, run.status])).toEqual([
      ["p", "awaiting_approval"],
      ["p.r1", "awaiting_approval"],
    ]);
  });

  it("resume refuses a child run on its own, naming the parent's log and the chained id to resume it with", async () => {
    // Resuming the child alone would finish it while its parent went on waiting.
    const { code, stderr } = await cli(["resume", join(dir, "p.r1.jsonl"), "--tools", tools, "--approve", "e1"]);
    expect(code).toBe(2);
    expect(stderr.trim()).toBe(
      `agentloop: run 'p.r1' is run by call 'r1' of run 'p': resume ${join(dir, "p.jsonl")} --approve r1/e1, which resumes the whole tree`,
    );
  });

  it("show names a child whose log does not fit the machine as refused, and still shows its parent", async () => {
    const copy = tempDir();
    copyFileSync(join(dir, "p.jsonl"), join(copy, "p.jsonl"));
    // The child's log goes on with a result for a call that never started.
    const child = readEvents(join(dir, "p.r1.jsonl"));
    const at = child.at(-1)?.at ?? "";
    writeEvents(join(copy, "p.r1.jsonl"), [
      ...child,
      { seq: child.length, at, type: "tool.finished", callId: "zz", content: "1" },
    ]);
    const { code, stdout } = await cli(["show", join(copy, "p.jsonl"), "--no-color"]);
    expect(code).toBe(0);
    expect(stdout).toMatch(/child +p\.r1 · refused · steps 0/);
  });

  it("the HTML report lists the child run under its call, expandable, and the tree's waiting call", async () => {
    const page = join(dir, "p.html");
    expect((await cli(["show", join(dir, "p.jsonl"), "--html", page])).code).toBe(0);
    const html = readFileSync(page, "utf8");
    expect(html).toMatch(
      /<details class="child"><summary>call <code>r1<\/code> \(research\) → child run <code>p\.r1<\/code>/,
    );
    expect(html).toMatch(/class="status-awaiting_approval">awaiting_approval · 1 steps · \d+ tokens</);
    expect(html).toContain("Email ana the capital of Peru.");
    expect(html).toContain("<code>r1/e1</code> (send_email)");
    // The timeline's last note says the tree waits, as show's text does, not that the log was cut off.
    expect(html).toContain('"waiting","waiting for a decision on r1/e1 (send_email)"');
    expect(html).not.toContain("the log ends here");
  });

  it("the printed approve hint, pasted with the tools and model filled in, finishes the tree", async () => {
    const { stdout } = await cli(["show", "p.jsonl", "--no-color"], { cwd: dir });
    const approve = stdout.split("\n").find((line) => line.startsWith("approve"));
    const resumed = await sh(filled(approve ?? ""), dir);
    expect(resumed.stderr).toBe("");
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toContain("answer   Done: ana was emailed.");
    const after = await cli(["show", join(dir, "p.jsonl"), "--no-color"]);
    expect(after.stdout).toMatch(/child +p\.r1 · done · steps 2 · tokens \d+/);
  });
});

describe("a paused tree, denied", () => {
  it("the printed deny hint, pasted with the tools and model filled in, tells the child's model and finishes the tree", async () => {
    const own = tempDir();
    const run = await cli(
      ["run", "--tools", tools, "--script", script, "--store", ".", "--run-id", "q", "Email ana."],
      {
        cwd: own,
      },
    );
    expect(run.code).toBe(5);
    const { stdout } = await cli(["show", "q.jsonl", "--no-color"], { cwd: own });
    const deny = stdout.split("\n").find((line) => line.startsWith("deny"));
    expect(deny).toMatch(/--deny r1\/e1$/);
    const resumed = await sh(filled(deny ?? ""), own);
    expect(resumed.stderr).toBe("");
    expect(resumed.code).toBe(0);
    const child = await cli(["replay", join(own, "q.r1.jsonl"), "--json"]);
    expect((JSON.parse(child.stdout) as { answer: string }).answer).toMatch(/^mail agent: .*denied/i);
  });
});
