import { runAgent } from "@agentloop/core";
import { makeWeatherRegistry } from "@agentloop/provider-testkit";
import { afterEach, describe, expect, it } from "vitest";
import { openaiModel } from "../src/index.js";
import { completion, type FakeOpenAI, MODEL, startFakeOpenAI } from "./fake-openai.js";

let server: FakeOpenAI | undefined;
afterEach(async () => {
  const violations = server?.violations ?? [];
  await server?.close();
  server = undefined;
  expect(violations, "requests that break the Chat Completions wire format").toEqual([]);
});

interface Body {
  readonly tools?: readonly { readonly function: { readonly name: string } }[];
  readonly tool_choice?: unknown;
}

describe("prepareStep's settings over Chat Completions", () => {
  it("sends only the active tools and the step's tool choice in OpenAI's form, each call its own", async () => {
    server = await startFakeOpenAI([
      completion({ toolCalls: [{ id: "call_1", name: "get_weather", arguments: '{"city":"Pune"}' }] }),
      completion({ content: "Hot." }),
      completion({ content: "Still hot." }),
    ]);
    const { registry } = makeWeatherRegistry();
    const model = openaiModel({ client: server.client(), model: MODEL });
    const choices = [{ name: "get_weather" }, "none"] as const;
    const result = await runAgent("Weather in Pune?", model, registry, {
      prepareStep: ({ step }) => ({ activeTools: ["get_weather"], toolChoice: choices[step - 1] }),
    });
    expect(result.status).toBe("done");
    const bodies = server.requests.map((request) => request.body as Body);
    expect(bodies[0]?.tools?.map((tool) => tool.function.name)).toEqual(["get_weather"]);
    expect(bodies[0]?.tool_choice).toEqual({ type: "function", function: { name: "get_weather" } });
    expect(bodies[1]?.tool_choice).toBe("none");
    await runAgent("Weather in Pune?", model, registry);
    expect(((server.requests[2] as { body: unknown }).body as Body).tool_choice).toBeUndefined();
    expect(((server.requests[2] as { body: unknown }).body as Body).tools).toHaveLength(2);
  });
});
