import { describe, expect, it } from "vitest";
import { assistantBlocks, isErrorObservation } from "./assistant-blocks.js";

describe("assistantBlocks", () => {
  it("puts thinking and redacted thinking first, in order, then text, then tool uses", () => {
    expect(
      assistantBlocks({
        role: "assistant",
        content: "Looking.",
        toolCalls: [{ id: "toolu_1", name: "get_weather", args: { city: "Pune" } }],
        reasoning: [
          { type: "reasoning", text: "a", signature: "s1" },
          { type: "redacted-reasoning", data: "opaque" },
          { type: "reasoning", text: "", signature: "s2" },
        ],
      }),
    ).toEqual([
      { type: "thinking", thinking: "a", signature: "s1" },
      { type: "redacted_thinking", data: "opaque" },
      { type: "thinking", thinking: "", signature: "s2" },
      { type: "text", text: "Looking." },
      { type: "tool_use", id: "toolu_1", name: "get_weather", input: { city: "Pune" } },
    ]);
  });

  it("leaves out unsigned reasoning and blank text, and gives nothing for an empty answer", () => {
    expect(
      assistantBlocks({
        role: "assistant",
        content: " \n",
        toolCalls: [],
        reasoning: [{ type: "reasoning", text: "x" }],
      }),
    ).toEqual([]);
  });
});

describe("isErrorObservation", () => {
  it("takes the isError flag when there is one, else the ERROR: prefix", () => {
    const tool = { role: "tool" as const, toolCallId: "c", name: "t" };
    expect(isErrorObservation({ ...tool, content: "ERROR: x" })).toBe(true);
    expect(isErrorObservation({ ...tool, content: "ERROR: x", isError: false })).toBe(false);
    expect(isErrorObservation({ ...tool, content: "denied", isError: true })).toBe(true);
    expect(isErrorObservation({ ...tool, content: "{}" })).toBe(false);
  });
});
