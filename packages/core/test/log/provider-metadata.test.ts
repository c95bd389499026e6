import { describe, expect, it } from "vitest";
import { checkReply } from "../../src/adapter.js";
import {
  MemoryEventStore,
  type Message,
  type Model,
  type ModelReply,
  replayRun,
  resumeAgent,
  runAgent,
} from "../../src/index.js";
import { parseEventLog } from "../../src/store.js";
import { makeWeatherRegistry, WEATHER_TASK as TASK } from "../../src/testing.js";

// A Gemini-like reply: the first of two parallel calls carries the thought signature.
const SIGNED: ModelReply = {
  content: "",
  toolCalls: [
    {
      id: "c1",
      name: "get_weather",
      args: { city: "Pune" },
      providerMetadata: { google: { thoughtSignature: "CiQBVKhc7mQ=" } },
    },
    { id: "c2", name: "get_weather", args: { city: "Delhi" } },
  ],
  reasoning: [{ type: "reasoning", text: "Two cities.", providerMetadata: { google: { thoughtSignature: "CiQ=" } } }],
  providerMetadata: { google: { groundingMetadata: null, usageMetadata: { thoughtsTokenCount: 12 } } },
  usage: { inputTokens: 100, outputTokens: 40, reasoningTokens: 12 },
};
const FINAL: ModelReply = { content: "Pune 30, Delhi 35.", toolCalls: [] };

/** A model that answers `replies` in turn and keeps every list it was shown. */
function recording(replies: readonly ModelReply[]) {
  const seen: (readonly Message[])[] = [];
  const model: Model = (messages) => {
    seen.push(messages);
    const reply = replies[seen.length - 1];
    if (reply === undefined) throw new Error("no more replies");
    return reply;
  };
  return { model, seen };
}

function assistantOf(messages: readonly Message[]) {
  return messages.find((message) => message.role === "assistant");
}

describe("providerMetadata", () => {
  it("is logged as given, shown to the next call, and read back unchanged by replay and resume", async () => {
    const store = new MemoryEventStore();
    const { model, seen } = recording([SIGNED, FINAL]);
    const result = await runAgent(TASK, model, makeWeatherRegistry().registry, { store, runId: "meta" });
    expect(result.status).toBe("done");
    const shown = assistantOf(seen[1] ?? []);
    expect(shown).toMatchObject({
      toolCalls: SIGNED.toolCalls,
      reasoning: SIGNED.reasoning,
      providerMetadata: SIGNED.providerMetadata,
    });

    const events = await store.read("meta");
    const replied = events.find((event) => event.type === "model.replied");
    expect(replied?.type === "model.replied" && replied.reply).toEqual(SIGNED);
    const parsed = parseEventLog("meta", JSON.parse(JSON.stringify(events)) as unknown[]);
    expect(replayRun(parsed).result?.messages).toEqual(result.messages);

    // Cut before the second reply: the resumed run shows the model the logged metadata.
    const cut = events.findIndex(
      (event, index) => index > 0 && event.type === "model.replied" && event.reply.toolCalls.length === 0,
    );
    const resumedStore = new MemoryEventStore();
    for (const event of events.slice(0, cut)) await resumedStore.append("meta", event);
    const again = recording([FINAL]);
    const resumed = await resumeAgent("meta", again.model, makeWeatherRegistry().registry, { store: resumedStore });
    expect(resumed.messages).toEqual(result.messages);
    expect(assistantOf(again.seen[0] ?? [])).toEqual(shown);
  });

  it("a log without it reads as before, and metadata that is not JSON objects by provider is refused in one line", () => {
    expect(checkReply({ content: "a", toolCalls: [] })).toEqual({ content: "a", toolCalls: [] });
    expect(
      checkReply({ content: "", toolCalls: [{ id: "c", name: "n", args: {}, providerMetadata: { google: 1 } }] }),
    ).toBe("reply.toolCalls[0].providerMetadata.google must be an object");
    expect(checkReply({ content: "", toolCalls: [], providerMetadata: "x" })).toBe(
      "reply.providerMetadata must be an object of objects by provider name",
    );
    expect(
      checkReply({
        content: "",
        toolCalls: [],
        reasoning: [{ type: "reasoning", text: "", providerMetadata: { a: { b: Number.NaN } } }],
      }),
    ).toBe("reply.reasoning[0].providerMetadata.a must be plain JSON data (a number that is NaN)");
    expect(
      checkReply({ content: "", toolCalls: [], usage: { inputTokens: 1, outputTokens: 2, reasoningTokens: 3 } }),
    ).toMatch(/^reply\.usage\.reasoningTokens must be/);
  });
});
