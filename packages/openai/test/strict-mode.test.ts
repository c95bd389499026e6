import { jsonSchema, ModelError, runAgent, type ToolParameters, ToolRegistry } from "@agentloop/core";
import { afterEach, describe, expect, it } from "vitest";
import { OpenAIRequestError, openaiModel } from "../src/index.js";
import { toStrictParameters } from "../src/strict-schema.js";
import { completion, type FakeOpenAI, MODEL, startFakeOpenAI } from "./fake-openai.js";
import { checkStrictTools } from "./openai-server-rules.js";

/** A search tool: a required list of filters (each a `$ref`), an optional unit enum and an optional nested object. */
const SEARCH: ToolParameters = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  type: "object",
  properties: {
    filters: { type: "array", items: { $ref: "#/$defs/filter" }, minItems: 1, uniqueItems: true },
    unit: { enum: ["C", "F"], description: "the unit of temperatures", default: "C" },
    page: {
      type: "object",
      properties: { size: { type: "integer", minimum: 1 }, cursor: { type: "string" } },
      required: ["size"],
    },
  },
  required: ["filters"],
  $defs: {
    filter: {
      type: "object",
      properties: { field: { type: "string" }, value: { type: ["string", "null"] }, note: { type: "string" } },
      required: ["field"],
      additionalProperties: false,
    },
  },
};

const spec = (parameters: ToolParameters) => ({ name: "search", description: "Searches.", parameters });

let server: FakeOpenAI | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe("the fake server holds strict functions to OpenAI's rules", () => {
  it("refuses a schema as registered, with the API's own words, and takes the adapted one", () => {
    const asRegistered = [{ type: "function", function: { name: "search", strict: true, parameters: SEARCH } }];
    expect(checkStrictTools(asRegistered)).toEqual([
      "Invalid schema for function 'search': In context=(), 'additionalProperties' is required to be supplied and to be false.",
    ]);
    const closed = [
      { function: { name: "search", strict: true, parameters: { ...SEARCH, additionalProperties: false } } },
    ];
    expect(checkStrictTools(closed)).toEqual([
      "Invalid schema for function 'search': In context=(), 'required' is required to be supplied and to be an array including every key in properties. Missing 'unit'.",
    ]);
    const open = { type: "object", properties: { a: { type: "object", properties: {} } }, required: ["a"] };
    expect(
      checkStrictTools([
        { function: { name: "t", strict: true, parameters: { ...open, additionalProperties: false } } },
      ]),
    ).toEqual([
      "Invalid schema for function 't': In context=('properties', 'a'), 'additionalProperties' is required to be supplied and to be false.",
    ]);
    const adapted = [
      { type: "function", function: { name: "search", strict: true, parameters: toStrictParameters(spec(SEARCH)) } },
    ];
    expect(checkStrictTools(adapted)).toEqual([]);
  });
});

describe("toStrictParameters", () => {
  it("lists every property as required, makes the optional ones nullable, closes every object, keeps what strict mode takes", () => {
    expect(toStrictParameters(spec(SEARCH))).toEqual({
      type: "object",
      properties: {
        filters: { type: "array", items: { $ref: "#/$defs/filter" }, minItems: 1 },
        unit: { anyOf: [{ enum: ["C", "F"] }, { type: "null" }], description: "the unit of temperatures" },
        page: {
          anyOf: [
            {
              type: "object",
              properties: {
                size: { type: "integer", minimum: 1 },
                cursor: { anyOf: [{ type: "string" }, { type: "null" }] },
              },
              required: ["size", "cursor"],
              additionalProperties: false,
            },
            { type: "null" },
          ],
        },
      },
      required: ["filters", "unit", "page"],
      additionalProperties: false,
      $defs: {
        filter: {
          type: "object",
          // Already nullable: required as it is, with no second null.
          properties: {
            field: { type: "string" },
            value: { type: ["string", "null"] },
            note: { anyOf: [{ type: "string" }, { type: "null" }] },
          },
          required: ["field", "value", "note"],
          additionalProperties: false,
        },
      },
    });
  });

  it("turns oneOf into anyOf and gives a tool without parameters an empty closed object", () => {
    const either = {
      type: "object",
      properties: { id: { oneOf: [{ type: "string" }, { type: "integer" }] } },
      required: ["id"],
    };
    expect(toStrictParameters(spec(either as ToolParameters)).properties).toEqual({
      id: { anyOf: [{ type: "string" }, { type: "integer" }] },
    });
    expect(toStrictParameters(spec({ type: "object" }))).toEqual({
      type: "object",
      properties: {},
      required: [],
      additionalProperties: false,
    });
  });

  it.each([
    [
      "an object open to other properties",
      { type: "object", properties: { headers: { type: "object", additionalProperties: { type: "string" } } } },
      "the root.properties.headers is open to other properties ('additionalProperties' other than false)",
    ],
    [
      "a free-form nested object",
      { type: "object", properties: { meta: { type: "object" } } },
      "the root.properties.meta is a free-form object (it lists no properties)",
    ],
    ["allOf", { type: "object", allOf: [{ properties: { a: { type: "string" } } }] }, "the root uses 'allOf'"],
    [
      "a tuple",
      { type: "object", properties: { at: { type: "array", prefixItems: [{ type: "number" }] } } },
      "the root.properties.at uses 'prefixItems'",
    ],
  ])("refuses %s with OpenAIRequestError naming the tool and where", (_label, parameters, words) => {
    const convert = () => toStrictParameters(spec(parameters as ToolParameters));
    expect(convert).toThrow(OpenAIRequestError);
    expect(convert).toThrow(`tool 'search' cannot be sent with strict: true: ${words}`);
  });
});

describe("openaiModel with strict: true, over the wire", () => {
  it("sends strict functions OpenAI accepts; a null for an optional property is dropped before the call is checked and run", async () => {
    const runs: unknown[] = [];
    const registry = new ToolRegistry();
    registry.register("search", "Searches the archive.", SEARCH, (query) => {
      runs.push(query);
      return { hits: 1 };
    });
    const call = (id: string, args: unknown) =>
      completion({ toolCalls: [{ id, name: "search", arguments: JSON.stringify(args) }] });
    server = await startFakeOpenAI([
      call("c1", {
        filters: [{ field: "year", value: null, note: null }],
        unit: null,
        page: { size: 10, cursor: null },
      }),
      call("c2", { filters: [{ field: "year", value: "2020" }], unit: "F", page: null }),
      completion({ content: "One hit." }),
    ]);
    const model = openaiModel({ client: server.client(), model: MODEL, strict: true });
    const result = await runAgent("Find them.", model, registry);
    expect(server.violations).toEqual([]);
    expect(result).toMatchObject({ status: "done", answer: "One hit." });
    const sent = (server.requests[0]?.body as { tools?: { function: { strict?: boolean } }[] } | undefined)?.tools;
    expect(sent?.map((tool) => tool.function.strict)).toEqual([true]);
    // A null the schema takes (`value`) stays; a null for an optional property is an absent one,
    // also inside a `$ref`'d definition (`note`).
    expect(runs).toEqual([
      { filters: [{ field: "year", value: null }], page: { size: 10 } },
      { filters: [{ field: "year", value: "2020" }], unit: "F" },
    ]);
    // The log and the trace hold the arguments as checked and run.
    const [first] = result.messages.flatMap((message) => (message.role === "assistant" ? message.toolCalls : []));
    expect(first?.args).toEqual(runs[0]);
  });

  it("a tool strict mode cannot express fails the first model call before any request, naming the tool", async () => {
    const registry = new ToolRegistry();
    registry.register(
      "tag",
      "Tags a page.",
      jsonSchema({
        type: "object",
        properties: { labels: { type: "object", additionalProperties: { type: "string" } } },
      }),
      () => "ok",
    );
    server = await startFakeOpenAI([completion({ content: "unused" })]);
    const model = openaiModel({ client: server.client(), model: MODEL, strict: true });
    const failure = await runAgent("Tag it.", model, registry).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ModelError);
    expect((failure as ModelError).cause).toBeInstanceOf(OpenAIRequestError);
    expect((failure as ModelError).message).toContain("tool 'tag' cannot be sent with strict: true");
    expect(server.requests).toHaveLength(0);
  });

  it("refuses a value that is not a boolean when the model is made", () => {
    expect(() => openaiModel({ client: {} as never, model: MODEL, strict: "yes" as never })).toThrow(
      "strict must be true or false, got yes",
    );
  });
});
