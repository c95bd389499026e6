import assert from "node:assert/strict";
import { asks, contentText, final, runAgent, scriptedModel, ToolRegistry, toolCall } from "@agentloop/core";

const registry = new ToolRegistry();

// A tool is a name, a description, a schema of scalar arguments, and a function.
registry.register(
  "get_weather",
  "Current temperature of one city in Celsius.",
  { type: "object", properties: { city: { type: "string", description: "e.g. Pune" } }, required: ["city"] },
  ({ city }: { city: string }) => ({ city, celsius: 30 }),
  { idempotent: true }, // safe to run again if the process died while it ran
);

// The function gets an AbortSignal: it aborts on the tool's timeout and when the run is cancelled.
registry.register(
  "fetch_page",
  "Fetch a web page's text.",
  { type: "object", properties: { url: { type: "string" } }, required: ["url"] },
  async ({ url }: { url: string }, { signal }: { signal: AbortSignal }) => {
    await new Promise((resolve, reject) => {
      const timer = setTimeout(resolve, 5_000);
      signal.addEventListener("abort", () => {
        clearTimeout(timer);
        reject(new Error(`stopped fetching ${url}`));
      });
    });
    return "<html>...</html>";
  },
  { timeoutMs: 50, maxResultChars: 2_000 }, // per tool; the run's defaults are 60 s and 8,000 characters
);

// A risky tool runs only after a decision.
registry.register(
  "delete_file",
  "Delete one file.",
  { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
  ({ path }: { path: string }) => ({ deleted: path }),
  { needsApproval: true },
);

const model = scriptedModel([
  asks(
    toolCall("c1", "get_wether", { city: "Pune" }), // a name that does not exist
    toolCall("c2", "get_weather", { town: "Pune" }), // an argument that is not in the schema
    toolCall("c3", "fetch_page", { url: "https://example.com" }), // takes too long
    toolCall("c4", "delete_file", { path: "/tmp/report.txt" }), // needs approval
  ),
  final("Done."),
]);

const result = await runAgent("Tidy up.", model, registry, {
  approve: (call) => ({ approved: false, reason: `${call.name} is not allowed today` }),
});

// Every mistake comes back to the model as an observation that says how to fix the call.
const observations = result.messages.flatMap((message) =>
  message.role === "tool" ? [contentText(message.content)] : [],
);
assert.equal(result.status, "done");
assert.match(observations[0] ?? "", /^ERROR: unknown tool 'get_wether'\. Available tools: \['delete_file', /);
assert.match(observations[1] ?? "", /^ERROR: missing required argument 'city'\. get_weather expects/);
assert.match(observations[2] ?? "", /^ERROR: fetch_page timed out after 50 ms/);
assert.match(
  observations[3] ?? "",
  /^ERROR: the user denied this call to delete_file \(delete_file is not allowed today\)/,
);
