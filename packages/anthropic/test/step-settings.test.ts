import { runAgent } from "@agentloop/core";
import { makeWeatherRegistry } from "@agentloop/provider-testkit";
import { afterEach, describe, expect, it } from "vitest";
import { anthropicModel } from "../src/index.js";
import { type FakeAnthropic, MODEL, message, startFakeAnthropic } from "./fake-anthropic.js";

let server: FakeAnthropic | undefined;
afterEach(async () => {
  const violations = server?.violations ?? [];
  await server?.close();
  server = undefined;
  expect(violations, "requests that break the Messages API's wire format").toEqual([]);
});

interface Body {
  readonly tools?: readonly { readonly name: string }[];
  readonly tool_choice?: unknown;
}

describe("prepareStep's settings over the Messages API", () => {
  it("sends only the active tools and the step's tool choice in Anthropic's form, each call its own", async () => {
    server = await startFakeAnthropic([
      message({ content: [{ type: "tool_use", id: "toolu_1", name: "get_weather", input: { city: "Pune" } }] }),
      message({ content: [{ type: "text", text: "Hot." }] }),
      message({ content: [{ type: "text", text: "Still hot." }] }),
      message({ content: [{ type: "text", text: "Hot again." }] }),
    ]);
    const { registry } = makeWeatherRegistry();
    const model = anthropicModel({ client: server.client(), model: MODEL, maxTokens: 512 });
    const choices = [{ name: "get_weather" }, "none"] as const;
    const result = await runAgent("Weather in Pune?", model, registry, {
      prepareStep: ({ step }) => ({ activeTools: ["get_weather"], toolChoice: choices[step - 1] }),
    });
    expect(result.status).toBe("done");
    const bodies = server.requests.map((request) => request.body as Body);
    expect(bodies[0]?.tools?.map((tool) => tool.name)).toEqual(["get_weather"]);
    expect(bodies[0]?.tool_choice).toEqual({ type: "tool", name: "get_weather" });
    expect(bodies[1]?.tool_choice).toEqual({ type: "none" });
    await runAgent("Weather in Pune?", model, registry, { prepareStep: () => ({ toolChoice: "required" }) });
    expect(((server.requests[2] as { body: unknown }).body as Body).tool_choice).toEqual({ type: "any" });
    await runAgent("Weather in Pune?", model, registry);
    expect(((server.requests[3] as { body: unknown }).body as Body).tool_choice).toBeUndefined();
    expect(((server.requests[3] as { body: unknown }).body as Body).tools).toHaveLength(2);
  });
});
