import { agentTool, ToolRegistry } from "@agentloop/core";
import { describe, expect, it } from "vitest";
import { agentWorkflow } from "./agent-workflow.js";

const model = () => ({ content: "hi", toolCalls: [] });
const registry = new ToolRegistry();
const schema = { type: "object", properties: { ssn: { type: "string" } } } as const;
const guardrails = { input: [{ name: "no-ssn", check: () => ({ tripped: true, reason: "an SSN" }) }] };

/** A registry with an agent tool: its calls are child runs, each a workflow of its own. */
function withAgentTool(limits: { timeoutMs?: number } = {}): ToolRegistry {
  return new ToolRegistry([
    agentTool({ name: "helper", description: "Helps.", model, registry: new ToolRegistry(), ...limits }),
  ]);
}

/** The options a JavaScript caller (or a spread of `runAgent`'s options) may give that Restate does not run. */
const refused: readonly [string, Record<string, unknown>][] = [
  ["signal", { signal: new AbortController().signal }],
  ["onEvent", { onEvent: () => {} }],
  ["onLogged", { onLogged: () => {} }],
  ["runId", { runId: "r" }],
  ["toolTimeout", { toolTimeout: 5 }],
  ["timeoutMs of agent tool 'helper'", { registry: withAgentTool({ timeoutMs: 1000 }) }],
];

/** The options of `runAgent` a Restate run applies as it does (each is run on the real server: `test/parity.test.ts`, `test/step-control.test.ts`, `test/agent-tools.test.ts`). */
const taken: readonly [string, Record<string, unknown>][] = [
  ["output", { output: schema }],
  ["outputRetries", { output: schema, outputRetries: 1 }],
  ["guardrails", { guardrails }],
  ["retry", { retry: { attempts: 2 } }],
  ["fallbackModels", { fallbackModels: [model] }],
  ["compaction.summarizer", { compaction: { triggerTokens: 100, summarizer: model } }],
  ["prepareStep", { prepareStep: () => undefined }],
  ["pricing", { pricing: { default: { input: 1, output: 2 } } }],
  ["costBudget", { pricing: { default: { input: 1, output: 2 } }, costBudget: 1 }],
  ["agent tools", { registry: withAgentTool() }],
];

describe("options agentWorkflow does not run", () => {
  it.each(refused)("%s is refused in one line when the workflow is defined", (name, extra) => {
    const define = () => agentWorkflow({ model, registry, ...extra } as Parameters<typeof agentWorkflow>[0]);
    expect(define).toThrow(TypeError);
    expect(define).toThrow(new RegExp(`^agentWorkflow cannot take ${name.replace(".", "\\.")}: `));
    const message = (() => {
      try {
        define();
        return "";
      } catch (error) {
        return (error as Error).message;
      }
    })();
    expect(message).not.toContain("\n");
  });

  it("names every refused option at once", () => {
    const onEvent = () => {};
    expect(() =>
      agentWorkflow({ model, registry, runId: "r", onEvent } as Parameters<typeof agentWorkflow>[0]),
    ).toThrow(/^agentWorkflow cannot take runId, onEvent: /);
  });

  it.each(taken)("%s is taken now: a Restate run applies it", (_name, extra) => {
    const definition = agentWorkflow({ model, registry, ...extra } as Parameters<typeof agentWorkflow>[0]);
    expect(definition.name).toBe("agent");
  });

  it("takes every option it runs", () => {
    const definition = agentWorkflow({
      model,
      registry,
      name: "all",
      system: "s",
      history: [],
      maxSteps: 3,
      tokenBudget: 1000,
      replyReserve: 10,
      repeatLimit: 2,
      onRepeatedCall: "stop",
      toolConcurrency: 1,
      compaction: { triggerTokens: 500, strategy: "trim", keepRecent: 2 },
      toolTimeoutMs: 1000,
      maxResultChars: 100,
      approve: () => undefined,
      modelRetry: { maxRetryAttempts: 2 },
      saveEventsEvery: 1,
      restate: {},
    });
    expect(definition.name).toBe("all");
  });
});
