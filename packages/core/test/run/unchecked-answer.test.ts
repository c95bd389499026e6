import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { Guardrail } from "../../src/index.js";
import { agentTool, MemoryEventStore, replayRun, runAgent, ToolRegistry } from "../../src/index.js";
import { chainHash, runHashSeed } from "../../src/log/log-hash.js";
import type { StoredEvent } from "../../src/store.js";
import { asks, final, makeWeatherRegistry, scriptedModel, toolCall } from "../../src/testing.js";

const Weather = z.object({ city: z.string(), celsius: z.number() });
const SECRET = "the customer's card is 4111 1111 1111 1111";
const noCards: Guardrail = {
  name: "no-cards",
  check: (text) =>
    /\d{4} \d{4} \d{4} \d{4}/.test(text) ? { tripped: true, reason: "a card number" } : { tripped: false },
};

describe("an answer that never matched the output schema", () => {
  it("does not leave a run with output guardrails: answer null, and no guardrail is asked of it", async () => {
    const { registry } = makeWeatherRegistry();
    const asked: string[] = [];
    const watching: Guardrail = {
      name: "watch",
      check: (text) => {
        asked.push(text);
        return { tripped: false };
      },
    };
    const model = scriptedModel([final(SECRET)]);
    const store = new MemoryEventStore();
    const result = await runAgent("q", model, registry, {
      output: Weather,
      outputRetries: 0,
      guardrails: { output: [noCards, watching] },
      store,
      runId: "r",
    });
    expect(result).toMatchObject({ status: "invalid_output", answer: null, steps: 1 });
    expect(result.output).toBeUndefined();
    expect(asked).toEqual([]);
    expect(replayRun(await store.read("r")).result).toMatchObject({ status: "invalid_output", answer: null });
    expect((await store.read("r")).at(-1)).toMatchObject({ type: "run.finished", outcome: { answer: null } });
  });

  it("still leaves a run without output guardrails, as the last text", async () => {
    const { registry } = makeWeatherRegistry();
    const result = await runAgent("q", scriptedModel([final("prose")]), registry, {
      output: Weather,
      outputRetries: 0,
    });
    expect(result).toMatchObject({ status: "invalid_output", answer: "prose" });
  });

  it("never reaches the parent's model: the child's end is an ERROR: naming its status, without its text", async () => {
    const { registry: weather } = makeWeatherRegistry();
    const child = scriptedModel([final(SECRET)]);
    const registry = new ToolRegistry([
      agentTool({
        name: "lookup",
        description: "Looks the weather up.",
        model: child,
        registry: weather,
        options: { output: Weather, outputRetries: 0, guardrails: { output: [noCards] } },
      }),
    ]);
    const parent = scriptedModel([asks(toolCall("c1", "lookup", { task: "Pune" })), final("Could not.")]);
    const result = await runAgent("Weather in Pune?", parent, registry);
    expect(result.status).toBe("done");
    const seen = JSON.stringify(parent.seen[1]);
    expect(seen).not.toContain("4111");
    expect(parent.seen[1]?.at(-1)).toMatchObject({
      role: "tool",
      isError: true,
      content: expect.stringMatching(
        /^ERROR: lookup ended with status invalid_output and no answer after 1 model calls\. Answer/,
      ),
    });
  });

  it("replays from a log written when the unchecked text was logged as the answer, and withholds it", async () => {
    const { registry } = makeWeatherRegistry();
    const store = new MemoryEventStore();
    const options = { output: Weather, outputRetries: 0, guardrails: { output: [noCards] }, store, runId: "old" };
    await runAgent("q", scriptedModel([final(SECRET)]), registry, options);
    // The same log as it was written before: run.finished with the last text as its answer.
    const events = (await store.read("old")).map((event) =>
      event.type === "run.finished" ? { ...event, outcome: { ...event.outcome, answer: SECRET } } : event,
    );
    const older = rehash("old", events);
    const replayed = replayRun(older);
    expect(replayed.result).toMatchObject({ status: "invalid_output", answer: null });
    // Any other answer in an outcome that differs is still refused, as a tampered log is.
    const tampered = rehash(
      "old",
      events.map((event) =>
        event.type === "run.finished" ? { ...event, outcome: { ...event.outcome, status: "done" as const } } : event,
      ),
    );
    expect(() => replayRun(tampered)).toThrow(/records .* but the events lead to/);
  });
});

/** The events with their hash chain made anew, as a log written with these contents would have it. */
function rehash(runId: string, events: readonly StoredEvent[]): StoredEvent[] {
  let previous = runHashSeed(runId);
  return events.map(({ hash: _hash, ...rest }) => {
    const hash = chainHash(previous, JSON.stringify(rest));
    previous = hash;
    return { ...rest, hash } as StoredEvent;
  });
}
