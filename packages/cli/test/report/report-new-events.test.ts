import { copyFileSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir } from "../cli.js";
import { agentloop } from "../in-process.js";

const GOLDEN = join(import.meta.dirname, "..", "..", "..", "core", "test", "fixtures", "golden");

/** The report's data of a golden log: the JSON the page renders from. */
async function reportOf(name: string): Promise<{
  types: string[];
  rows: [number, ...unknown[]][];
  compactions: [number, number, number, string | null][];
}> {
  const log = join(tempDir(), name);
  copyFileSync(join(GOLDEN, name), log);
  const out = join(tempDir(), "report.html");
  const made = await agentloop(["show", log, "--html", out]);
  expect(made.code).toBe(0);
  const html = readFileSync(out, "utf8");
  const json = /<script type="application\/json" id="run-data">([\s\S]*?)<\/script>/.exec(html)?.[1] ?? "{}";
  return JSON.parse(json);
}

const typesOf = (name: string): string[] =>
  readFileSync(join(GOLDEN, name), "utf8")
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => (JSON.parse(line) as { type: string }).type);

describe("the report names every event of schema 4", () => {
  // Regression test; before the change: the page's list of event types stopped at user.messaged,
  // so a compaction, an output check or a guardrail's verdict was a row of type -1 with no name.
  it.each(["v4-compaction.jsonl", "v4-output-guardrails.jsonl", "v4-guardrail-tripped.jsonl", "v4-retries.jsonl"])(
    "%s: each row carries its event's type",
    async (name) => {
      const data = await reportOf(name);
      expect(data.rows.map((row) => data.types[row[0]])).toEqual(typesOf(name));
    },
  );

  it("a compaction is given to the page with what it hid, so the studio shows the compacted view", async () => {
    const data = await reportOf("v4-compaction.jsonl");
    const rows = typesOf("v4-compaction.jsonl").flatMap((type, row) => (type === "context.compacted" ? [row] : []));
    expect(rows.length).toBeGreaterThan(0);
    expect(data.compactions.map((c) => c[0])).toEqual(rows);
    for (const [, head, keptFrom, summary] of data.compactions) {
      expect(keptFrom).toBeGreaterThan(head);
      if (summary !== null) expect(summary).toMatch(/^Summary of the earlier part of this conversation/);
    }
  });
});

describe("the timeline names every event of schema 4 apart from what follows it", () => {
  // Regression test; before the change: event types were padded to 17 characters, the length of
  // guardrail.checked and context.compacted, which then ran into their description.
  it.each(["v4-compaction.jsonl", "v4-output-guardrails.jsonl"])("%s", async (name) => {
    const log = join(tempDir(), name);
    copyFileSync(join(GOLDEN, name), log);
    const shown = await agentloop(["show", log, "--no-color"]);
    expect(shown.code).toBe(0);
    const types = new Set(typesOf(name));
    const named = shown.stdout.split("\n").flatMap((line) => {
      const type = [...types].find((t) => line.includes(` ${t}`));
      return type === undefined ? [] : [line.slice(line.indexOf(` ${type}`) + 1 + type.length)];
    });
    expect(named.length).toBeGreaterThan(0);
    for (const rest of named) expect(rest === "" || rest.startsWith(" ")).toBe(true);
    expect(shown.stdout).toMatch(/(guardrail\.checked|context\.compacted) +\S/);
  });
});

describe("show's result names a typed answer's value and the guardrail that tripped", () => {
  // Regression test; before the change: the result said `guardrail_tripped` and `answer (none)`,
  // and which guardrail tripped, and why, was only in the timeline above it.
  it.each([
    ["v4-output-guardrails.jsonl", /^output {3}\{"city":"Pune","fahrenheit":86\}$/m],
    ["v4-guardrail-tripped.jsonl", /^tripped {2}input guardrail topic: off topic$/m],
  ])("%s", async (name, line) => {
    const log = join(tempDir(), name);
    copyFileSync(join(GOLDEN, name), log);
    const shown = await agentloop(["show", log, "--no-color"]);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toMatch(line);
  });
});
