import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { AGENT_STATUSES } from "@agentloop/core";
import { describe, expect, it } from "vitest";
import { EXIT_CODES } from "../../src/exit-codes.js";

describe("exit codes in the docs", () => {
  it("the guide's status table lists every status, and the docs give a status's code as this table does", () => {
    const chapters = join(import.meta.dirname, "..", "..", "..", "..", "docs", "guide");
    const guide = readdirSync(chapters)
      .filter((file) => file.endsWith(".md"))
      .map((file) => readFileSync(join(chapters, file), "utf8"))
      .join("\n");
    const listed = guide.split("\n").flatMap((line) => /^\| `([a-z_]+)` +\| /.exec(line)?.[1] ?? []);
    expect(AGENT_STATUSES.filter((status) => !listed.includes(status))).toEqual([]);
    const claims = [
      ...guide.matchAll(/`([a-z_]+)`,?\s+and\s+exits\s+(?:with\s+)?`?(\d+)`?|exits\s+`?(\d+)`?\s+for\s+`([a-z_]+)`/g),
    ];
    const said = claims.map((m) => (m[1] === undefined ? [m[4], Number(m[3])] : [m[1], Number(m[2])]));
    expect(said.map(([status]) => status)).toEqual(expect.arrayContaining(["cost_budget", "invalid_output"]));
    for (const [status, code] of said)
      expect([status, code]).toEqual([status, EXIT_CODES[status as keyof typeof EXIT_CODES]]);
    expect(guide).not.toMatch(/stopped by the budget exits with/);
  });
});
