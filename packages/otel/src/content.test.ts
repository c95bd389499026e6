import type { ModelReply } from "@agentloop/core";
import { describe, expect, it } from "vitest";
import { answerMessages, callArguments, finishReason, inputMessages, outputMessages } from "./content.js";

const reply = (extra: Partial<ModelReply>): ModelReply => ({ content: "", toolCalls: [], ...extra });

describe("finishReason", () => {
  it.each([
    [reply({ content: "Done." }), "stop"],
    [reply({ toolCalls: [{ id: "c", name: "t", args: {} }] }), "tool_call"],
    [reply({ content: "Cut", finishReason: "length" }), "length"],
    [reply({ finishReason: "content-filter" }), "content_filter"],
    [reply({ content: "No.", finishReason: "refusal" }), "refusal"],
    [reply({ finishReason: "other" }), "other"],
  ])("%j ends with %s", (given, expected) => {
    expect(finishReason(given)).toBe(expected);
  });
});

describe("messages in the conventions' shape", () => {
  it("turns each role into its parts: text, reasoning, tool calls and their responses", () => {
    const messages = JSON.parse(
      inputMessages([
        { role: "system", content: "Be brief." },
        { role: "user", content: "Hi" },
        {
          role: "assistant",
          content: "Let me look.",
          toolCalls: [
            { id: "c1", name: "look", args: { q: "x" } },
            { id: "c2", name: "look", args: {}, rawArgs: "{oops" },
          ],
          reasoning: [
            { type: "reasoning", text: "I should look.", signature: "sig" },
            { type: "redacted-reasoning", data: "opaque" },
          ],
        },
        { role: "tool", toolCallId: "c1", name: "look", content: '"found"' },
        { role: "tool", toolCallId: "c2", name: "look", content: "ERROR: bad JSON", isError: true },
      ]),
    );
    expect(messages).toEqual([
      { role: "system", parts: [{ type: "text", content: "Be brief." }] },
      { role: "user", parts: [{ type: "text", content: "Hi" }] },
      {
        role: "assistant",
        parts: [
          { type: "reasoning", content: "I should look." },
          { type: "text", content: "Let me look." },
          { type: "tool_call", id: "c1", name: "look", arguments: { q: "x" } },
          { type: "tool_call", id: "c2", name: "look", arguments: "{oops" },
        ],
      },
      { role: "tool", parts: [{ type: "tool_call_response", id: "c1", response: '"found"' }] },
      { role: "tool", parts: [{ type: "tool_call_response", id: "c2", response: "ERROR: bad JSON" }] },
    ]);
  });

  it("gives a reply as one assistant message with its finish reason, and an answer as one that stopped", () => {
    const thinking = reply({ content: "Hot.", reasoning: [{ type: "reasoning", text: "Hmm." }] });
    expect(JSON.parse(outputMessages(thinking))).toEqual([
      {
        role: "assistant",
        parts: [
          { type: "reasoning", content: "Hmm." },
          { type: "text", content: "Hot." },
        ],
        finish_reason: "stop",
      },
    ]);
    expect(JSON.parse(answerMessages("Hot."))).toEqual([
      { role: "assistant", parts: [{ type: "text", content: "Hot." }], finish_reason: "stop" },
    ]);
  });

  it("gives a call's arguments as JSON, or as the model wrote them when they were not a JSON object", () => {
    expect(callArguments({ id: "c", name: "t", args: { city: "Pune" } })).toBe('{"city":"Pune"}');
    expect(callArguments({ id: "c", name: "t", args: {}, rawArgs: '{"city": "Pu' })).toBe('{"city": "Pu');
  });
});
