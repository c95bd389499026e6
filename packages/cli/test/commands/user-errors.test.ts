import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { EVENT_LOG_SCHEMA_VERSION } from "@agentloop/core/store";
import { beforeAll, describe, expect, it } from "vitest";
import { cli, fixture, tempDir } from "../cli.js";

// slow: it starts the CLI once for each of its many mistakes.

const dir = tempDir();
const tools = fixture("tools.mjs");
const script = fixture("weather-script.json");
const started = JSON.stringify({
  seq: 0,
  at: "2026-12-02T11:19:12.011Z",
  type: "run.started",
  schemaVersion: 1,
  settings: { task: "t", system: "s", maxSteps: 8, tokenBudget: 4000, tools: [] },
});

beforeAll(() => {
  writeFileSync(join(dir, "torn.jsonl"), `${started}\n{"seq":1,"at":"x","type":"model.rep`);
  writeFileSync(join(dir, "notjson.jsonl"), `${started}\nnot json at all\n`);
  writeFileSync(
    join(dir, "misfit.jsonl"),
    `${started}\n{"seq":1,"at":"2026-12-02T11:19:13.000Z","type":"tool.finished","callId":"x","content":"1"}\n`,
  );
  writeFileSync(join(dir, "newer.jsonl"), `${started.replace('"schemaVersion":1', '"schemaVersion":9')}\n`);
  writeFileSync(join(dir, "empty.jsonl"), "");
  writeFileSync(join(dir, "onlystart.jsonl"), `${started}\n`);
  writeFileSync(join(dir, "log.txt"), `${started}\n`);
  writeFileSync(join(dir, "broken.json"), '[{ "content": "hi", ');
});

/** [what, arguments, a part of the one line the user must see] */
const CASES: readonly [string, () => string[], string | RegExp][] = [
  ["an unknown command", () => ["frobnicate"], "unknown command 'frobnicate': use one of demo, run, list, show"],
  ["an option before the command", () => ["--fast"], "unknown option --fast: options go after a command"],
  ["an unknown help topic", () => ["help", "nope"], "unknown command 'nope'"],
  ["an unknown flag of demo", () => ["demo", "--fast"], "unknown option --fast; see 'agentloop demo --help'"],
  ["an unknown flag of run", () => ["run", "--tool", tools, "t"], "unknown option --tool; see 'agentloop run --help'"],
  [
    "an unknown flag of show",
    () => ["show", "x.jsonl", "--htm", "a"],
    "unknown option --htm; see 'agentloop show --help'",
  ],
  [
    "an unknown flag of replay",
    () => ["replay", "--as-json"],
    "unknown option --as-json; see 'agentloop replay --help'",
  ],
  ["an unknown flag of resume", () => ["resume", "--yes"], "unknown option --yes; see 'agentloop resume --help'"],
  [
    "an unknown flag of graph",
    () => ["graph", "--fromat", "dot"],
    "unknown option --fromat; see 'agentloop graph --help'",
  ],
  ["a flag without its value", () => ["run", "t", "--tools"], "option --tools <value> needs a value"],
  [
    "a bad --model",
    () => ["demo", "--model", "gpt-4o"],
    "--model must be <provider>:<name>, the provider one of openai, anthropic, google, bedrock, mistral",
  ],
  [
    "a missing OpenAI key",
    () => ["demo", "--model", "openai:gpt-4o-mini"],
    "OPENAI_API_KEY is not set: export OPENAI_API_KEY=",
  ],
  ["a missing Anthropic key", () => ["demo", "--model", "anthropic:claude-sonnet-4-5"], "ANTHROPIC_API_KEY is not set"],
  ["a bad --delay", () => ["demo", "--delay", "soon"], "--delay must be a whole number, 0 or more; got 'soon'"],
  ["run without a task", () => ["run", "--tools", tools, "--script", script], "'agentloop run' needs a task in quotes"],
  ["run without --tools", () => ["run", "--script", script, "task"], "'agentloop run' needs --tools <module>"],
  ["run without a model", () => ["run", "--tools", tools, "task"], "'agentloop run' needs a model: --model"],
  [
    "run with --model and --script",
    () => ["run", "--tools", tools, "--script", script, "--model", "openai:x", "t"],
    "give --model or --script, not both",
  ],
  [
    "a missing tools module",
    () => ["run", "--tools", join(dir, "nope.mjs"), "--script", script, "t"],
    /tools module '.*nope\.mjs' does not exist/,
  ],
  [
    "a tools module without a function",
    () => ["run", "--tools", fixture("no-function.mjs"), "--script", script, "t"],
    "must export a function (registry) => void",
  ],
  [
    "a tools module that fails to load",
    () => ["run", "--tools", join(dir, "broken.json"), "--script", script, "t"],
    "failed to load",
  ],
  [
    "a missing script",
    () => ["run", "--tools", tools, "--script", join(dir, "nope.json"), "t"],
    /script file '.*nope\.json' does not exist/,
  ],
  [
    "a script that is not JSON",
    () => ["run", "--tools", tools, "--script", join(dir, "broken.json"), "t"],
    /script file '.*broken\.json' is not valid JSON: /,
  ],
  [
    "a script that is not an array",
    () => ["run", "--tools", tools, "--script", fixture("not-an-array.json"), "t"],
    "must hold a JSON array of model replies",
  ],
  [
    "a script with a bad reply",
    () => ["run", "--tools", tools, "--script", fixture("bad-reply.json"), "t"],
    "reply 0: reply.content must be a string",
  ],
  [
    "a bad --max-steps",
    () => ["run", "--tools", tools, "--script", script, "--max-steps=-1", "t"],
    "--max-steps must be a whole number, 0 or more; got '-1'",
  ],
  [
    "a value that looks like a flag",
    () => ["run", "--max-steps", "-1", "t"],
    "option --max-steps needs a value (for a value that starts with '-', write --max-steps=<value>)",
  ],
  [
    "a bad --token-budget",
    () => ["run", "--tools", tools, "--script", script, "--token-budget", "lots", "t"],
    "--token-budget must be a whole number",
  ],
  [
    "a --store that is a file",
    () => ["run", "--tools", tools, "--script", script, "--store", fixture("tools.mjs"), "t"],
    "is a file: give a directory",
  ],
  ["show without a log", () => ["show"], "'agentloop show' needs a log (<runId>.jsonl)"],
  ["show with two logs", () => ["show", "a.jsonl", "b.jsonl"], "takes one a log (<runId>.jsonl), got 2 arguments"],
  ["a missing log", () => ["show", join(dir, "gone.jsonl")], /log '.*gone\.jsonl' does not exist/],
  ["a log that is not .jsonl", () => ["replay", join(dir, "log.txt")], "must be a <runId>.jsonl file"],
  ["an empty log", () => ["replay", join(dir, "empty.jsonl")], "holds no run 'empty'"],
  ["a torn log", () => ["show", join(dir, "torn.jsonl")], "run 'torn': line 2 of"],
  [
    "a log line that is not JSON",
    () => ["replay", join(dir, "notjson.jsonl")],
    /run 'notjson': line 2 of .* is not valid JSON/,
  ],
  [
    "a log that does not fit the machine",
    () => ["show", join(dir, "misfit.jsonl")],
    "run 'misfit': event 1 (tool.finished) ",
  ],
  [
    "a log of a newer schema",
    () => ["graph", "--run", join(dir, "newer.jsonl")],
    `was written with schema version 9; this agentloop reads up to ${EVENT_LOG_SCHEMA_VERSION}`,
  ],
  [
    "resume without --tools",
    () => ["resume", join(dir, "misfit.jsonl")],
    "'agentloop resume' needs --tools <module> or an MCP server (--mcp, --mcp-url)",
  ],
  [
    "approving and denying one call",
    () => ["resume", join(dir, "misfit.jsonl"), "--tools", tools, "--approve", "a", "--deny", "a"],
    "call 'a' is both approved and denied",
  ],
  [
    "resume with other tools than the log's",
    () => ["resume", join(dir, "onlystart.jsonl"), "--tools", tools],
    "was started with other tools than this registry has (",
  ],
  ["an unknown graph format", () => ["graph", "--format", "svg"], "--format must be mermaid, dot or json; got 'svg'"],
];

describe("user errors: one line on stderr saying what to do, exit code 2", () => {
  it.each(CASES)("%s", async (_what, args, expected) => {
    const { code, stdout, stderr } = await cli(args(), { cwd: dir });
    expect(code).toBe(2);
    expect(stdout).toBe("");
    expect(stderr.endsWith("\n")).toBe(true);
    expect(stderr.trimEnd().split("\n")).toHaveLength(1);
    expect(stderr).toMatch(/^agentloop: /);
    if (typeof expected === "string") expect(stderr).toContain(expected);
    else expect(stderr).toMatch(expected);
  });
});
