import type { ModelReply, ReasoningPart } from "@agentloop/core/adapter";
import { toolCall, WEATHER_TASK } from "@agentloop/core/testing";
import type { ConformanceScenario, ScenarioLimits } from "./scenarios.js";

/**
 * How a provider hands out reasoning: `signed` (Anthropic: thinking text with a signature, and
 * redacted thinking) or `plain` (OpenAI-compatible servers: reasoning text only).
 */
export type ReasoningStyle = "signed" | "plain";

const roomy: ScenarioLimits = () => ({ maxSteps: 8, tokenBudget: 1_000_000 });

// Stand-ins for the provider's opaque values: tests compare them byte for byte, nothing decodes them.
const SIGNATURES = [
  "EqQBCkgIBxABGAIiQPd0aXQ=",
  "EqIBCkgIBxABGAIiQHVuaXQ=",
  "ErUBCkYIARgCIkAzZXJv",
  "EsECCokBCBAYAipA9i3=",
];
const REDACTED =
  "EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpPkNRj2YfWXGmKDxH4mPnZ5sQ7vB9URj2pLmN3kF8/dW5hR7xJ0aP1oLs9yTcMnKVf2wRp";

function thought(style: ReasoningStyle, text: string, step: number): ReasoningPart {
  return style === "signed"
    ? { type: "reasoning", text, signature: SIGNATURES[step] ?? `sig-${step}` }
    : { type: "reasoning", text };
}

/**
 * The thinking-model and reasoning-model scenarios in a provider's style: multi-step tool use
 * whose replies carry reasoning that must go back with the next call. A thinking model shows its
 * reasoning before every reply; a reasoning model hides it (Anthropic's omitted display: empty
 * text with a signature, and a redacted block; a compatible server: reasoning text, then an empty
 * one) and calls two tools at once.
 */
export function reasoningScenarios(style: ReasoningStyle): ConformanceScenario[] {
  return [
    {
      name: "thinking model: every reply's reasoning goes back with the next call",
      task: WEATHER_TASK,
      kind: "thinking-model",
      replies: (): ModelReply[] => [
        {
          content: "",
          toolCalls: [toolCall("c1", "get_weather", { city: "Pune" })],
          reasoning: [thought(style, "The user wants Fahrenheit.\nFirst the Celsius reading for Pune.", 0)],
        },
        {
          content: "",
          toolCalls: [toolCall("c2", "c_to_f", { celsius: 30 })],
          reasoning: [thought(style, "Pune is at 30 °C; the tool converts it.", 1)],
        },
        {
          content: "It is 86 F in Pune.",
          toolCalls: [],
          reasoning: [thought(style, "86 °F. Done.", 2)],
        },
      ],
      limits: roomy,
      status: "done",
    },
    {
      name: "reasoning model: hidden and redacted reasoning goes back unchanged, around parallel calls",
      task: "Which is hotter, Pune or Delhi?",
      kind: "reasoning-model",
      replies: (): ModelReply[] => [
        {
          content: "Checking both.",
          toolCalls: [toolCall("a", "get_weather", { city: "Pune" }), toolCall("b", "get_weather", { city: "Delhi" })],
          reasoning:
            style === "signed"
              ? [thought(style, "", 0), { type: "redacted-reasoning", data: REDACTED }]
              : [thought(style, "Two cities: ask for both at once.", 0)],
        },
        { content: "Delhi is hotter.", toolCalls: [], reasoning: [thought(style, "", 3)] },
      ],
      limits: roomy,
      status: "done",
    },
  ];
}
