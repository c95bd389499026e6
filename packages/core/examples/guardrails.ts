import assert from "node:assert/strict";
import {
  final,
  type Guardrail,
  MemoryEventStore,
  replayRun,
  runAgent,
  scriptedModel,
  ToolRegistry,
} from "@agentloop/core";

// An input guardrail: the task (and each next message of a conversation) is checked before the
// turn's first model call, so personal data never reaches the provider.
const EMAIL = /[\w.+-]+@[\w-]+(\.[\w-]+)+/;
const PHONE = /\+?\d[\d ()-]{7,}\d/;
const noPersonalData: Guardrail = {
  name: "no-personal-data",
  check(text) {
    const found = [EMAIL.test(text) ? "an email address" : "", PHONE.test(text) ? "a phone number" : ""];
    const what = found.filter((kind) => kind !== "").join(" and ");
    return what === "" ? { tripped: false } : { tripped: true, reason: `the message holds ${what}` };
  },
};

// An output guardrail: the answer is checked before the run ends `done`. A check may be async (a
// moderation service, a classifier model); pass the `signal` on, it aborts when the run is cancelled.
const noRefundPromises: Guardrail = {
  name: "no-refund-promises",
  timeoutMs: 5_000, // a check that takes longer trips the run
  async check(text, { signal }) {
    signal.throwIfAborted();
    const promises = /\b(will|we'll|guarantee)\b[^.]*\brefund/i.test(text);
    return promises ? { tripped: true, reason: "only a person may promise a refund" } : { tripped: false };
  },
};
const guardrails = { input: [noPersonalData], output: [noRefundPromises] };
const registry = new ToolRegistry();

// A task with personal data ends the run before any model call: no step, no answer.
const leaky = scriptedModel([final("Sure.")]);
const stopped = await runAgent("Write to ana@example.com about order 1182.", leaky, registry, { guardrails });
assert.equal(stopped.status, "guardrail_tripped");
assert.deepEqual(stopped.guardrail, {
  name: "no-personal-data",
  stage: "input",
  reason: "the message holds an email address",
});
assert.equal(stopped.steps, 0);
assert.equal(leaky.seen.length, 0); // the model was never called
assert.equal(stopped.answer, null);
const phoned = await runAgent("Call me on +91 98200 12345.", scriptedModel([]), registry, { guardrails });
assert.equal(phoned.guardrail?.reason, "the message holds a phone number");

// An answer that breaks the policy is not handed out: `answer` is null; the trace keeps the text.
const store = new MemoryEventStore();
const generous = scriptedModel([final("So sorry! We will refund order 1182 today.")]);
const held = await runAgent("Order 1182 came broken.", generous, registry, { guardrails, store, runId: "order-1182" });
assert.equal(held.status, "guardrail_tripped");
assert.deepEqual(held.guardrail, {
  name: "no-refund-promises",
  stage: "output",
  reason: "only a person may promise a refund",
});
assert.equal(held.answer, null);

// Every verdict is logged before the run acts on it: a replay has the same result, and calls no guardrail.
const log = await store.read("order-1182");
assert.deepEqual(
  log.flatMap((event) => (event.type === "guardrail.checked" ? [`${event.stage} ${event.name} ${event.tripped}`] : [])),
  ["input no-personal-data false", "output no-refund-promises true"],
);
assert.deepEqual(replayRun(log).result?.guardrail, held.guardrail);

// A guardrail that throws trips the run too (it fails closed), its reason naming the error.
const flaky: Guardrail = {
  name: "moderation",
  check: () => {
    throw new Error("moderation service unavailable");
  },
};
const careful = scriptedModel([final("Your parcel ships on Monday.")]);
const closed = await runAgent("When does order 1182 ship?", careful, registry, {
  guardrails: { output: [flaky, noRefundPromises] },
});
assert.equal(closed.status, "guardrail_tripped");
assert.equal(closed.guardrail?.reason, "moderation failed: Error: moderation service unavailable");

// When every guardrail passes, the run ends as it would without them.
const fine = await runAgent("When does order 1182 ship?", scriptedModel([final("On Monday.")]), registry, {
  guardrails,
});
assert.equal(fine.status, "done");
assert.equal(fine.answer, "On Monday.");
