import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { replayRun } from "@agentloop/core";
import { outcomeOf } from "@agentloop/core/machine";
import { EVENT_LOG_SCHEMA_VERSION, type RunEvent, type StoredEvent } from "@agentloop/core/store";
import { sealedFor } from "./logs.js";

const SPEC = {
  name: "get_weather",
  description: "Current temperature of one city in Celsius.",
  parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
} as const;

/**
 * The log of a run of `steps` model calls, built event by event without running anything: each
 * step but the last asks for the weather once and gets it, the last answers. The end's outcome is
 * what core's replay of those events gives, so the log is one that a real run could have written;
 * it is sealed for `runId`. Events are a millisecond apart; with `gapEvery`, every so many events
 * come two minutes later than that (a long pause the timeline marks).
 */
export function longLog(runId: string, steps: number, gapEvery = 0): StoredEvent[] {
  const settings = {
    task: "How hot is it, again and again?",
    system: "Use the tools to answer the user.",
    maxSteps: steps,
    tokenBudget: Number.POSITIVE_INFINITY,
    tools: [SPEC],
    approvalRequired: [],
    idempotentTools: [],
    repeatableTools: [],
    repeatLimit: Number.POSITIVE_INFINITY,
    onRepeatedCall: "refuse",
    replyReserve: 0,
    countUsage: true,
    toolConcurrency: Number.POSITIVE_INFINITY,
  } as const;
  const events: RunEvent[] = [{ type: "run.started", schemaVersion: EVENT_LOG_SCHEMA_VERSION, settings }];
  for (let step = 1; step < steps; step++) {
    const callId = `c${step}`;
    const city = step % 2 === 0 ? "Pune" : "Delhi";
    events.push(
      { type: "model.replied", reply: { content: "", toolCalls: [{ id: callId, name: SPEC.name, args: { city } }] } },
      { type: "tool.started", callId, name: SPEC.name },
      { type: "tool.finished", callId, content: JSON.stringify({ city, celsius: 30 + (step % 7) }) },
    );
  }
  events.push({ type: "model.replied", reply: { content: "It stays warm.", toolCalls: [] } });
  const start = Date.parse("2026-12-02T12:00:00.000Z");
  const timeOf = (seq: number) => start + seq + (gapEvery > 0 ? Math.floor(seq / gapEvery) * 120_000 : 0);
  const stamp = (list: readonly RunEvent[]) =>
    list.map((event, seq) => ({ ...event, seq, at: new Date(timeOf(seq)).toISOString() }) as StoredEvent);
  const result = replayRun(stamp(events), { runId }).result;
  if (result === null) throw new Error("the long log does not reach its end");
  events.push({ type: "run.finished", outcome: outcomeOf(result) });
  return sealedFor(runId, stamp(events));
}

/** Writes `longLog(runId, steps, gapEvery)` as `<dir>/<runId>.jsonl` and returns its path. */
export function writeLongLog(dir: string, runId: string, steps: number, gapEvery = 0): string {
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${runId}.jsonl`);
  const lines = longLog(runId, steps, gapEvery).map((event) => JSON.stringify(event));
  writeFileSync(file, `${lines.join("\n")}\n`);
  return file;
}
