import { describe, expect, it } from "vitest";
import { weatherOnThinkingModel } from "../examples/thinking-model.js";
import { message, startFakeAnthropic } from "./fake-anthropic.js";
import { thinkingToolUse } from "./fixtures/messages.js";

describe("examples/thinking-model.ts, offline", () => {
  it("runs the weather agent on a recorded thinking reply, streaming its answer, the thinking sent back", async () => {
    const answer = message({
      content: [
        { type: "thinking", thinking: "30 °C is 86 °F.", signature: "EqQBCkgIBxABGAIiQPd0aXQ=" },
        { type: "text", text: "It is 86 F in Pune." },
      ],
    });
    const fake = await startFakeAnthropic([{ status: 200, body: thinkingToolUse }, answer]);
    const printed: string[] = [];
    try {
      const result = await weatherOnThinkingModel(fake.client(), (text) => printed.push(text));
      expect(result).toMatchObject({ status: "done", answer: "It is 86 F in Pune." });
      expect(printed.join("")).toBe("It is 86 F in Pune.");
      expect(result.messages[2]).toMatchObject({ reasoning: [{ type: "reasoning", signature: expect.any(String) }] });
      expect(fake.violations).toEqual([]);
    } finally {
      await fake.close();
    }
  });
});
