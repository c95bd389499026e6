import { type BaseEvent, EventType } from "@ag-ui/core";
import { MemoryEventStore } from "@agentloop/core";
import { describe, expect, it } from "vitest";
import { agUiHandler } from "../src/index.js";
import { input, post, readEvents } from "./fixture.js";
import { POLICIES, policiesServed } from "./policies.js";

/** How one AG-UI run ended: its `RUN_FINISHED` (outcome, result, interrupts) or its `RUN_ERROR`'s message. */
async function runOf(handler: (request: Request) => Promise<Response>, body: Record<string, unknown>) {
  const response = await handler(post(body));
  if (response.status !== 200) return { error: `${response.status} ${await response.text()}` };
  const last = (await readEvents(response)).at(-1) as BaseEvent & Record<string, unknown>;
  if (last.type === EventType.RUN_ERROR) return { error: last.message };
  const outcome = last.outcome as { type: string; interrupts?: unknown };
  return outcome.type === "interrupt"
    ? { outcome: outcome.type, interrupts: outcome.interrupts }
    : { outcome: outcome.type, result: last.result };
}

describe("a served AG-UI thread goes on with every policy the server was configured with", () => {
  it.each(POLICIES)(
    "%s: asked on every kind of turn (start, resume after an approval, continue, resume after an answer, a cut-off run taken up)",
    async (policy) => {
      const store = new MemoryEventStore();
      const { model, registry, options, asked, sent, expectUsed, cutOff } = policiesServed(policy);
      const handler = agUiHandler({ model, registry, store, options });

      let was = { ...asked };
      expect(await runOf(handler, input("policies", "run-1", "Mail Ana, then plan my trip."))).toMatchObject({
        outcome: "interrupt",
        interrupts: [expect.objectContaining({ id: "e1" })],
      });
      expectUsed(was, asked, false);

      was = { ...asked };
      const approved = [{ interruptId: "e1", status: "resolved" as const, payload: { approved: true } }];
      expect(
        await runOf(handler, input("policies", "run-2", "Mail Ana, then plan my trip.", { resume: approved })),
      ).toEqual({
        outcome: "success",
        result: { status: "done", answer: "Sent." },
      });
      expect(sent).toEqual(["ana@example.com"]);
      expectUsed(was);

      was = { ...asked };
      expect(await runOf(handler, input("policies", "run-3", "Now the trip."))).toMatchObject({
        outcome: "interrupt",
        interrupts: [expect.objectContaining({ id: "q1" })],
      });
      expectUsed(was);

      was = { ...asked };
      const answered = [{ interruptId: "q1", status: "resolved" as const, payload: "Lima" }];
      expect(await runOf(handler, input("policies", "run-4", "Now the trip.", { resume: answered }))).toEqual({
        outcome: "success",
        result: { status: "done", answer: "Lima it is." },
      });
      expectUsed(was);

      // A run cut off by a failed model call; the next message finishes it from its log, then goes on.
      cutOff();
      // The client is told the run failed, not the provider's words.
      expect(await runOf(handler, input("policies", "run-5", "One more thing."))).toEqual({
        error: "the agent failed (policies)",
      });
      was = { ...asked };
      expect(await runOf(handler, input("policies", "run-6", "Still there?"))).toEqual({
        outcome: "success",
        result: { status: "done", answer: "Still here." },
      });
      expectUsed(was);
      expect(sent).toEqual(["ana@example.com"]);
    },
  );
});
