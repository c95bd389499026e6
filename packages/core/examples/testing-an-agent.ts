import assert from "node:assert/strict";
import { asks, contentText, final, runAgent, scriptedModel, ToolRegistry, toolCall } from "@agentloop/core";

// Test the harness, not the model: a scripted model replays fixed replies and records what it saw.
const ran: string[] = [];
const registry = new ToolRegistry();
registry.register(
  "c_to_f",
  "Convert Celsius to Fahrenheit.",
  { type: "object", properties: { celsius: { type: "number" } }, required: ["celsius"] },
  ({ celsius }: { celsius: number }) => {
    ran.push(`c_to_f(${celsius})`);
    return (celsius * 9) / 5 + 32;
  },
);
const model = scriptedModel([
  asks(toolCall("c1", "c_to_f", { celsius: "30" })),
  asks(toolCall("c2", "c_to_f", { celsius: 30 })),
  final("86 F"),
]);

const result = await runAgent("30 C in F?", model, registry);

assert.equal(result.status, "done");
assert.deepEqual(
  model.seen.map((shown) => shown.length),
  [2, 4, 6],
); // the whole list, every call
const lastShown = model.seen[1]?.at(-1); // what the model saw on its second call: the observation
assert.ok(lastShown?.role === "tool" && contentText(lastShown.content).includes("must be of type number"));
assert.deepEqual(ran, ["c_to_f(30)"]); // nothing ran for the invalid call
