import { ToolRegistry } from "@agentloop/core";
import { describe, expect, it } from "vitest";
import { agentWorkflow } from "./agent-workflow.js";

const model = () => ({ content: "hi", toolCalls: [] });
const registry = new ToolRegistry();

describe("agentWorkflow's options", () => {
  it("are checked when the workflow is defined, not in the middle of a run", () => {
    expect(() => agentWorkflow({ model, registry, toolTimeoutMs: 0 })).toThrow(
      new RangeError(`toolTimeoutMs must be milliseconds above 0 and at most ${2 ** 31 - 1}, or Infinity; got 0`),
    );
    expect(() => agentWorkflow({ model, registry, maxResultChars: 1.5 })).toThrow(
      new RangeError("maxResultChars must be a whole number above 0, or Infinity; got 1.5"),
    );
    expect(() => agentWorkflow({ model, registry, name: "my agent" })).toThrow(
      /name must start with a letter or '_' and hold letters, digits, '_', '.', '-'; got 'my agent'/,
    );
    for (const every of [0, 2.5, Number.NaN]) {
      expect(() => agentWorkflow({ model, registry, saveEventsEvery: every })).toThrow(
        new RangeError(`saveEventsEvery must be a whole number of events, 1 or more; got ${every}`),
      );
    }
  });

  it("define a workflow with the given name and the five handlers", () => {
    const definition = agentWorkflow({ model, registry, name: "support", toolTimeoutMs: Number.POSITIVE_INFINITY });
    expect(definition.name).toBe("support");
    expect(agentWorkflow({ model, registry }).name).toBe("agent");
  });
});
