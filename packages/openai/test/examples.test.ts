import { describe, expect, it } from "vitest";
import { weatherOnDeepSeek } from "../examples/reasoning-model.js";
import { startFakeOpenAI } from "./fake-openai.js";
import { deepseekAnswer, deepseekToolCall } from "./fixtures/compatible.js";

describe("examples/reasoning-model.ts, offline", () => {
  it("runs the weather agent on recorded DeepSeek thinking replies, streamed, the reasoning sent back", async () => {
    const fake = await startFakeOpenAI(
      [
        { status: 200, body: deepseekToolCall },
        { status: 200, body: deepseekAnswer },
      ],
      { dialect: "deepseek" },
    );
    const printed: string[] = [];
    try {
      const result = await weatherOnDeepSeek(fake.client(), (text) => printed.push(text));
      expect(result).toMatchObject({ status: "done", answer: "It is 86 F in Pune." });
      expect(printed.join("")).toBe("It is 86 F in Pune.");
      expect(fake.requests.map((request) => (request.body as { stream?: unknown }).stream)).toEqual([true, true]);
      expect(fake.violations).toEqual([]);
    } finally {
      await fake.close();
    }
  });
});
