import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseEventLog, type StoredEvent } from "../core-api.js";
import { describeEvent, descriptionContext } from "../trace/event-description.js";
import { traceRun } from "../trace/run-trace.js";
import { descriptionOf } from "./client/event-detail.js";
import { reportData } from "./report-data.js";

const GOLDEN = join(import.meta.dirname, "../../../core/test/fixtures/golden");
const LOGS = readdirSync(GOLDEN).filter((name) => name.endsWith(".jsonl"));

/** A golden log's events, read as core reads them. */
const logOf = (name: string): StoredEvent[] =>
  parseEventLog(
    name.replace(/\.jsonl$/, ""),
    readFileSync(join(GOLDEN, name), "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as unknown),
  );

/** What the page makes of each row's description, beside what `describeEvent` says of its event. */
function bothSides(events: readonly StoredEvent[]) {
  const trace = traceRun(events);
  const data = reportData(trace, 50);
  const context = descriptionContext(trace.entries);
  return trace.entries.map((entry, index) => {
    const row = data.rows[index];
    if (row === undefined) throw new Error(`no row ${index}`);
    const { title, summary } = describeEvent(entry, context);
    return { said: { title, summary }, shown: descriptionOf(data, row), templates: data.descriptions.length };
  });
}

describe("the page's descriptions of events", () => {
  it.each(LOGS)("%s: each row gives back its event's description, word for word", (name) => {
    const events = logOf(name);
    for (const { said, shown } of bothSides(events)) expect(shown).toEqual(said);
  });

  it("keeps numbers with a leading zero, and ones too long to be a number, as they were written", () => {
    const events = logOf("v1-safeguards-cancelled.jsonl").map((event) =>
      event.type === "run.cancelled"
        ? { ...event, reason: "agent 007 at 1.50, ticket 123456789012345678901234" }
        : event,
    );
    const rows = bothSides(events);
    for (const { said, shown } of rows) expect(shown).toEqual(said);
    expect(rows.at(-2)?.shown.summary).toEqual([["warn", "agent 007 at 1.50, ticket 123456789012345678901234"]]);
  });

  it("shares one template between the steps of a run: the page grows with its kinds of events, not its length", () => {
    const events = logOf("v2-parallel.jsonl");
    const rows = bothSides(events);
    expect(rows.at(-1)?.templates).toBeLessThan(rows.length);
  });
});
