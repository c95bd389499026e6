import assert from "node:assert/strict";
import {
  asks,
  contentText,
  final,
  jsonSchema,
  MemoryEventStore,
  replayRun,
  runAgent,
  scriptedModel,
  ToolRegistry,
  tool,
  toolCall,
} from "@agentloop/core";
import { z } from "zod";

// The answer's shape. With `output`, a reply without tool calls is the answer only once its text
// parses as JSON and passes this schema; `result.output` is then the parsed value, typed from it.
const Forecast = z.object({
  city: z.string(),
  celsius: z.number(),
  advice: z.enum(["stay in", "go out"]),
});

const getWeather = tool({
  name: "get_weather",
  description: "Current temperature of one city in Celsius.",
  parameters: z.object({ city: z.string() }),
  execute: ({ city }) => ({ city, celsius: 30 }),
});

// The model calls a tool first, as always; then it answers with the temperature as a string, which
// the schema refuses; told why, it answers again.
const model = scriptedModel([
  asks(toolCall("c1", "get_weather", { city: "Pune" })),
  final('{"city":"Pune","celsius":"30","advice":"stay in"}'),
  final('{"city":"Pune","celsius":30,"advice":"stay in"}'),
]);
const store = new MemoryEventStore();
const result = await runAgent("Should I go out in Pune? Answer in JSON.", model, new ToolRegistry([getWeather]), {
  output: Forecast,
  outputRetries: 2, // invalid answers the model may correct in a turn (the default)
  store,
  runId: "pune-forecast",
});

assert.equal(result.status, "done");
const forecast: z.output<typeof Forecast> | undefined = result.output; // typed from the schema: no cast
assert.deepEqual(forecast, { city: "Pune", celsius: 30, advice: "stay in" });
assert.equal(result.answer, '{"city":"Pune","celsius":30,"advice":"stay in"}'); // the text it came as
assert.equal(result.steps, 3); // the refused answer was a step

// The refused answer came back to the model as a user message naming the path, in the words a
// tool's arguments are refused in.
const told = contentText(result.messages.filter((message) => message.role === "user").at(-1)?.content ?? "");
assert.match(told, /^ERROR: your answer does not match the output schema: argument 'celsius' must be of type number/);

// Each verdict is logged, so a replay rebuilds the value without running the schema again.
const replayed = replayRun(await store.read("pune-forecast")).result;
assert.deepEqual(replayed?.output, forecast);

// jsonSchema(...) and plain JSON Schema (with an object root) type the answer too. With
// outputRetries 0 the first invalid answer ends the run `invalid_output`: `answer` is the last
// text, and there is no `output`.
const Unit = jsonSchema({ type: "object", properties: { unit: { enum: ["C", "F"] } }, required: ["unit"] });
const prose = scriptedModel([final("Celsius, I would say.")]);
const refused = await runAgent("Which unit?", prose, new ToolRegistry(), { output: Unit, outputRetries: 0 });
assert.equal(refused.status, "invalid_output");
assert.equal(refused.answer, "Celsius, I would say.");
const unit: "C" | "F" | undefined = refused.output?.unit;
assert.equal(unit, undefined);
