import assert from "node:assert/strict";
import { asks, contentText, final, runAgent, scriptedModel, ToolRegistry, tool, toolCall } from "@agentloop/core";
import { z } from "zod";

// A tool is a name, a description, parameters and a function. With a zod schema (or any Standard
// Schema library's) the arguments are validated for you and typed in `execute`.
const searchMail = tool({
  name: "search_mail",
  description: "Search the mailbox.",
  parameters: z.object({
    query: z.string().min(1),
    filters: z.array(z.object({ field: z.enum(["from", "subject"]), value: z.string() })).default([]),
    limit: z.number().int().min(1).max(50).default(10),
  }),
  execute: ({ query, filters, limit }) => ({ query, filters: filters.length, hits: Math.min(limit, 3) }),
  idempotent: true, // every option of ToolOptions goes in the definition
});

// Plain JSON Schema works too, as function definitions for the providers write it: draft 2020-12
// unless "$schema" names another draft.
const setUnit = tool({
  name: "set_unit",
  description: "Choose the temperature unit.",
  parameters: {
    type: "object",
    properties: { unit: { enum: ["C", "F"] } },
    required: ["unit"],
  },
  execute: ({ unit }) => ({ unit }), // unit is typed "C" | "F"
});

const registry = new ToolRegistry([searchMail, setUnit]);

const model = scriptedModel([
  asks(
    toolCall("c1", "search_mail", { query: "invoice", filters: [{ field: "date", value: "2025" }] }),
    toolCall("c2", "set_unit", { unit: "K" }),
  ),
  asks(
    toolCall("c3", "search_mail", { query: "invoice", filters: [{ field: "subject", value: "2025" }] }),
    toolCall("c4", "set_unit", { unit: "C" }),
  ),
  final("Found 3 invoices."),
]);
const result = await runAgent("Find my invoices.", model, registry);

// A bad call runs nothing: the model is told which argument, by its path, and what would be valid.
const observations = result.messages.flatMap((message) =>
  message.role === "tool" ? [contentText(message.content)] : [],
);
assert.match(
  observations[0] ?? "",
  /^ERROR: argument 'filters\[0\]\.field' must be one of "from", "subject" \(got "date"\)/,
);
assert.match(observations[1] ?? "", /^ERROR: argument 'unit' must be one of "C", "F" \(got "K"\)/);
assert.equal(observations[2], '{"query":"invoice","filters":1,"hits":3}');
assert.equal(observations[3], '{"unit":"C"}');
// What the model is shown is JSON Schema, zod's own conversion for a zod tool.
assert.deepEqual(registry.specs()[0]?.parameters.required, ["query"]);
