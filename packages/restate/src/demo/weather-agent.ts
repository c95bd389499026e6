import { asks, type EventStore, final, ToolRegistry, toolCall } from "@agentloop/core";
import { type AgentWorkflow, agentWorkflow } from "../agent-workflow.js";
import { stepScriptedModel } from "../step-scripted-model.js";

/** The demo's task. */
export const DEMO_TASK = "How hot is Pune in Fahrenheit? Email me the report.";

const CELSIUS: Readonly<Record<string, number>> = { Pune: 30, Delhi: 35 };

/** The weather tools, and a report tool that runs only after a decision. */
export function demoTools(): ToolRegistry {
  const registry = new ToolRegistry();
  registry.register(
    "get_weather",
    "Current temperature of one city in Celsius. Use it before any weather answer.",
    { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
    ({ city }: { city: string }) => {
      const celsius = CELSIUS[city];
      if (celsius === undefined) throw new Error(`no weather station in '${city}'`);
      return { city, celsius };
    },
    { idempotent: true },
  );
  registry.register(
    "c_to_f",
    "Convert Celsius to Fahrenheit. Use it for every conversion.",
    { type: "object", properties: { celsius: { type: "number" } }, required: ["celsius"] },
    ({ celsius }: { celsius: number }) => (celsius * 9) / 5 + 32,
    { idempotent: true },
  );
  registry.register(
    "email_report",
    "Email a short report to someone.",
    { type: "object", properties: { to: { type: "string" }, text: { type: "string" } }, required: ["to", "text"] },
    ({ to }: { to: string }) => ({ sent: true, to }),
    { needsApproval: true },
  );
  return registry;
}

/** What a model would say for the demo's task, step by step (the same reply again after a restart). */
export const DEMO_SCRIPT = [
  { content: "I will look up Pune first.", toolCalls: [toolCall("c1", "get_weather", { city: "Pune" })] },
  asks(toolCall("c2", "c_to_f", { celsius: 30 })),
  asks(toolCall("c3", "email_report", { to: "you@example.com", text: "It is 86 F in Pune." })),
  final("It is 86 F in Pune. I emailed you the report."),
];

/** The demo agent as a workflow named `agent`: the weather tools, a report that needs approval, a scripted model. */
export function demoWorkflow(store?: EventStore): AgentWorkflow {
  return agentWorkflow({
    model: stepScriptedModel(DEMO_SCRIPT),
    registry: demoTools(),
    ...(store === undefined ? {} : { store }),
  });
}
