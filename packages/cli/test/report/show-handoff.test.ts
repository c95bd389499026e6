import { copyFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir } from "../cli.js";
import { agentloop } from "../in-process.js";

const GOLDEN = join(import.meta.dirname, "..", "..", "..", "core", "test", "fixtures", "golden", "v4-handoff.jsonl");

describe("show names the agent of each reply and each handoff", () => {
  it("a run where triage hands over to billing: who wrote each reply, and the handoff with what billing was shown", async () => {
    const log = join(tempDir(), "v4-handoff.jsonl");
    copyFileSync(GOLDEN, log);
    const shown = await agentloop(["show", log]);
    expect(shown.code, shown.stderr).toBe(0);
    const lines = shown.stdout.split("\n");
    const replies = lines.filter((line) => line.includes("model.replied"));
    expect(replies.map((line) => /model\.replied\s+(\S+) step/.exec(line)?.[1])).toEqual([
      "triage",
      "billing",
      "billing",
    ]);
    expect(lines.find((line) => line.includes(" handoff "))).toMatch(
      /handoff\s+triage → billing \[h1\] · shown 1 messages of the conversation/,
    );
    expect(lines.find((line) => line.includes("tool.noted"))).toMatch(/refund \[r1\] \{"refund":"rf-7"\}/);
  });
});
