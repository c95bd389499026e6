import { describe, expect, it } from "vitest";
import { assignCallIds } from "./assign-call-ids.js";
import type { Message } from "./types.js";

const start: Message[] = [
  { role: "system", content: "s" },
  { role: "user", content: "u" },
];

describe("assignCallIds", () => {
  it("keeps usable provider ids", () => {
    expect(assignCallIds(["call_a", "call_b"], start)).toEqual(["call_a", "call_b"]);
  });

  it("replaces empty, blank and missing ids with ids derived from the reply's position", () => {
    expect(assignCallIds(["", undefined, null, "  "], start)).toEqual(["call_2_0", "call_2_1", "call_2_2", "call_2_3"]);
  });

  it("replaces an id repeated within the reply or used by an earlier call", () => {
    const history: Message[] = [
      ...start,
      { role: "assistant", content: "", toolCalls: [{ id: "x", name: "t", args: {} }] },
      { role: "tool", toolCallId: "x", name: "t", content: "1" },
    ];
    expect(assignCallIds(["x", "y", "y"], history)).toEqual(["call_4_0", "y", "call_4_2"]);
  });

  it("is deterministic, so a replayed run gets the same ids", () => {
    expect(assignCallIds(["", ""], start)).toEqual(assignCallIds(["", ""], start));
  });
});

describe("assignCallIds with the Anthropic id pattern", () => {
  it("replaces an id that tool_use blocks may not carry", () => {
    expect(assignCallIds(["toolu_01A", "call 1"], start, /^[a-zA-Z0-9_-]+$/)).toEqual(["toolu_01A", "call_2_1"]);
  });
});
