import { asks, final, toolCall } from "@agentloop/core";
import { describe, expect, it } from "vitest";
import { agUiHandler } from "../src/index.js";
import { emailAgent, input, post, readEvents } from "./fixture.js";

describe("a resumed AG-UI thread gets what a started one got", () => {
  it("its output guardrails and safeguards: the answer after an approval is checked as the first turn's would be", async () => {
    const { serve } = emailAgent([asks(toolCall("e1", "send_email", { to: "ana" })), final("The secret is 42.")]);
    const checked: string[] = [];
    const guardrails = {
      output: [
        {
          name: "no-secrets",
          check: (text: string) => {
            checked.push(text);
            return text.includes("secret")
              ? { tripped: true as const, reason: "a secret" }
              : { tripped: false as const };
          },
        },
      ],
    };
    const handler = agUiHandler({ ...serve, options: { guardrails, toolTimeoutMs: 5_000 } });
    const first = await readEvents(await handler(post(input("g", "r1", "Email ana."))));
    expect(first.at(-1)).toMatchObject({ type: "RUN_FINISHED", outcome: { interrupts: [{ id: "e1" }] } });
    const resume = [{ interruptId: "e1", status: "resolved", payload: { approved: true } }];
    const second = await readEvents(await handler(post(input("g", "r2", "", { resume }))));
    expect(second.at(-1)).toMatchObject({
      type: "RUN_FINISHED",
      result: { status: "guardrail_tripped" },
    });
    expect(checked).toEqual(["The secret is 42."]);
  });
});
