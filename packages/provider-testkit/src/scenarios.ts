import { type AgentStatus, asks, final, type MessageContent, type ModelReply, toolCall } from "@agentloop/core";
import { WEATHER_TASK } from "@agentloop/core/testing";

/** The limits of one scenario's run; `happyTokens` is what the happy path costs with the core's estimate. */
export type ScenarioLimits = (happyTokens: number) => { readonly maxSteps: number; readonly tokenBudget: number };

/** One of the spec's scenarios as data: the task, the model's replies, the limits and the exit it must reach. */
export interface ConformanceScenario {
  readonly name: string;
  /** Text, or content parts (the scenario with an image and a PDF). */
  readonly task: MessageContent;
  /** A fresh copy of the script each time. */
  readonly replies: () => ModelReply[];
  readonly limits: ScenarioLimits;
  readonly status: AgentStatus;
  /** Set for the scenarios whose replies carry reasoning (see `reasoningScenarios`). */
  readonly kind?: "thinking-model" | "reasoning-model";
}

const roomy: ScenarioLimits = () => ({ maxSteps: 8, tokenBudget: 1_000_000 });

/** The happy path: a thought with a tool call (text is not an answer), a second tool call, then the answer. */
export function happyScript(): ModelReply[] {
  return [
    { content: "I will look up Pune first.", toolCalls: [toolCall("c1", "get_weather", { city: "Pune" })] },
    asks(toolCall("c2", "c_to_f", { celsius: 30 })),
    final("It is 86 F in Pune."),
  ];
}

/** The spec's scenarios in the order it lists them: every exit and every error path the model can cause. */
export const CONFORMANCE_SCENARIOS: readonly ConformanceScenario[] = [
  { name: "happy path", task: WEATHER_TASK, replies: happyScript, limits: roomy, status: "done" },
  {
    name: "an image and a PDF in the task",
    task: [
      { type: "text", text: WEATHER_TASK },
      // A PNG's signature, and a PDF's first bytes: each adapter sends them in its provider's form.
      { type: "image", mediaType: "image/png", data: "iVBORw0KGgo=" },
      { type: "image", mediaType: "image/jpeg", data: "https://example.com/pune.jpg" },
      { type: "file", mediaType: "application/pdf", data: "JVBERi0xLjc=", filename: "forecast.pdf" },
    ],
    replies: happyScript,
    limits: roomy,
    status: "done",
  },
  {
    name: "two calls in one reply",
    task: "Which is hotter, Pune or Delhi?",
    replies: () => [
      asks(toolCall("a", "get_weather", { city: "Pune" }), toolCall("b", "get_weather", { city: "Delhi" })),
      final("Delhi is hotter."),
    ],
    limits: roomy,
    status: "done",
  },
  {
    name: "unknown tool",
    task: WEATHER_TASK,
    replies: () => [asks(toolCall("c1", "get_forecast", { city: "Pune" })), final("I could not look that up.")],
    limits: roomy,
    status: "done",
  },
  {
    name: "bad arguments",
    task: WEATHER_TASK,
    replies: () => [
      asks(
        toolCall("m1", "get_weather"),
        toolCall("m2", "c_to_f", { celsius: "30" }),
        toolCall("m3", "get_weather", { city: "Pune", unit: "F" }),
        toolCall("m4", "c_to_f", { celsius: true }),
      ),
      final("Giving up."),
    ],
    limits: roomy,
    status: "done",
  },
  {
    name: "tool error",
    task: "How hot is Atlantis? If unknown, use Pune.",
    replies: () => [
      asks(toolCall("c1", "get_weather", { city: "Atlantis" })),
      asks(toolCall("c2", "get_weather", { city: "Pune" })),
      final("Pune is at 30 C."),
    ],
    limits: roomy,
    status: "done",
  },
  {
    name: "step limit",
    task: WEATHER_TASK,
    replies: () => [1, 2, 3, 4, 5].map((n) => asks(toolCall(`c${n}`, "get_weather", { city: "Pune" }))),
    limits: () => ({ maxSteps: 5, tokenBudget: 1_000_000_000 }),
    status: "step_limit",
  },
  {
    name: "token budget: half the cost of a full run stops early",
    task: WEATHER_TASK,
    replies: happyScript,
    limits: (happyTokens) => ({ maxSteps: 8, tokenBudget: Math.floor(happyTokens / 2) }),
    status: "token_budget",
  },
  {
    name: "token budget: exactly the full cost finishes",
    task: WEATHER_TASK,
    replies: happyScript,
    limits: (happyTokens) => ({ maxSteps: 8, tokenBudget: happyTokens }),
    status: "done",
  },
];
