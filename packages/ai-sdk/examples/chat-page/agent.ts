import type { Message, Model, ModelReply } from "@agentloop/core";

type ModelCallOptions = Parameters<Model>[2];

import type { ServeOptions } from "@agentloop/ai-sdk";
import { askUserTool, contentText, MemoryEventStore, ToolRegistry } from "@agentloop/core";

const CELSIUS: Readonly<Record<string, number>> = { Pune: 30, Delhi: 35, Lima: 19, Oslo: 4 };

/**
 * The weather agent's tools: `get_weather` calls a paid service, so each call waits for the user's
 * approval; `ask_user` asks the user which city when the question names none.
 */
export function weatherTools(): ToolRegistry {
  const registry = new ToolRegistry([askUserTool()]);
  registry.register(
    "get_weather",
    "Current temperature of one city in Celsius, from a paid service: the user approves each call.",
    { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
    ({ city }: { city: string }) => {
      const celsius = CELSIUS[city];
      if (celsius === undefined) throw new Error(`no weather for '${city}'`);
      return { city, celsius };
    },
    { needsApproval: true },
  );
  return registry;
}

/**
 * A scripted stand-in for a model, so that the page runs without a key: it asks for the weather of
 * the city named in the question (or asks the user which city, when none is named), then streams
 * its answer word by word; `beforeAnswer` (if given)
 * is awaited after the answer's first word, which lets a test reload the page mid-answer.
 */
export function scriptedWeatherModel(beforeAnswer?: () => Promise<void>): Model {
  return async (messages: readonly Message[], _tools: unknown, options?: ModelCallOptions): Promise<ModelReply> => {
    const last = messages.at(-1);
    // The question names a city, or the user answered which: look its weather up.
    const city =
      last?.role === "user"
        ? cityIn(contentText(last.content))
        : last?.role === "tool"
          ? answeredCity(contentText(last.content))
          : null;
    if (city !== null) {
      const content = `Let me look up ${city}.`;
      options?.onDelta?.({ type: "text-delta", text: content });
      return { content, toolCalls: [{ id: `w-${messages.length}`, name: "get_weather", args: { city } }] };
    }
    if (last?.role === "user") {
      const question = { question: "Which city?" };
      return { content: "", toolCalls: [{ id: `q-${messages.length}`, name: "ask_user", args: question }] };
    }
    const answer = last?.role === "tool" ? answerFrom(contentText(last.content)) : "I could not get the weather.";
    const words = answer.split(" ");
    for (const [i, word] of words.entries()) {
      options?.onDelta?.({ type: "text-delta", text: i === 0 ? word : ` ${word}` });
      if (i === 0) await beforeAnswer?.();
    }
    return { content: answer, toolCalls: [] };
  };
}

function cityIn(text: string): string | null {
  return Object.keys(CELSIUS).find((name) => text.includes(name)) ?? null;
}

/** The city the user gave as the answer to "Which city?" (the answer, as JSON, is the call's result). */
function answeredCity(result: string): string | null {
  try {
    const answer: unknown = JSON.parse(result);
    return typeof answer === "string" ? cityIn(answer) : null;
  } catch {
    return null;
  }
}

function answerFrom(result: string): string {
  try {
    const { city, celsius } = JSON.parse(result) as { city: string; celsius: number };
    return `It is ${celsius} °C (${(celsius * 9) / 5 + 32} °F) in ${city} right now.`;
  } catch {
    return `The weather service said: ${result}`;
  }
}

/** What the page's handler serves: the scripted model unless `model` is given, the weather tools, an in-memory store. */
export function weatherAgent(model: Model = scriptedWeatherModel()): ServeOptions {
  return { model, registry: weatherTools(), store: new MemoryEventStore(), options: { maxSteps: 4 } };
}
