import type { Message, ModelDelta } from "@agentloop/core";
import { mismatches } from "@agentloop/provider-testkit";
import { afterEach, expect, it } from "vitest";
import { openaiModel } from "../src/index.js";
import { type FakeOpenAI, MODEL, startFakeOpenAI } from "./fake-openai.js";

// StepFun (and vLLM builds with the reasoning_content back-compat) mirror each reasoning piece
// into both `reasoning` and `reasoning_content` of the same delta (MoonshotAI/kimi-code#3928).
const head = { id: "chatcmpl-9", object: "chat.completion.chunk", created: 1787000200, model: "step-3.5-flash" };
const chunk = (delta: unknown, finish: string | null = null) => ({
  ...head,
  choices: [{ index: 0, delta, finish_reason: finish }],
});
const mirrored = {
  events: [
    chunk({ role: "assistant", content: "", reasoning: "The", reasoning_content: "The" }),
    chunk({ content: "", reasoning: " user greets.", reasoning_content: " user greets." }),
    chunk({ content: "Hello!" }),
    chunk({}, "stop"),
  ]
    .map((each) => ({ data: JSON.stringify(each) }))
    .concat([{ data: "[DONE]" }]),
};

let server: FakeOpenAI | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

it("tells each reasoning piece once when a server mirrors it into reasoning and reasoning_content", async () => {
  server = await startFakeOpenAI([mirrored], { dialect: "vllm" });
  const start: Message[] = [{ role: "user", content: "Hi" }];
  const deltas: ModelDelta[] = [];
  const reply = await openaiModel({ client: server.client(), model: MODEL })(start, [], {
    signal: new AbortController().signal,
    onDelta: (delta) => deltas.push(delta),
  });
  expect(reply.reasoning).toEqual([{ type: "reasoning", text: "The user greets." }]);
  const told = deltas.flatMap((delta) => (delta.type === "reasoning-delta" ? [delta.text] : [])).join("");
  expect(told).toBe("The user greets.");
  expect(mismatches(reply, deltas)).toEqual([]);
});
