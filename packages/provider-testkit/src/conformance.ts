import { type AgentResult, type AgentStreamEvent, type Model, type ModelReply, runAgent } from "@agentloop/core";
import { makeWeatherRegistry, scriptedModel, type ToolRun, WEATHER_TASK } from "@agentloop/core/testing";
import { beforeAll, describe, expect, it } from "vitest";
import { deltaMismatches } from "./delta-mismatches.js";
import { type ReasoningStyle, reasoningScenarios } from "./reasoning-scenarios.js";
import { CONFORMANCE_SCENARIOS, type ConformanceScenario, happyScript } from "./scenarios.js";

/** An adapter wired to a fake server that will answer with `replies`, in order. */
export interface ConnectedModel {
  readonly model: Model;
  /** Wire-format problems the fake server found in the adapter's requests. */
  readonly violations: readonly string[];
  close(): Promise<void>;
}

/**
 * Builds an adapter whose fake server carries the same replies a scripted model would return, as
 * a JSON body or, when the adapter asks for a stream, as the provider's event stream. `scenario`
 * tells what the run is (a thinking-model scenario may need the adapter set up for thinking).
 */
export type ConnectModel = (replies: readonly ModelReply[], scenario: ConformanceScenario) => Promise<ConnectedModel>;

/** How the provider hands out reasoning, which shapes the thinking-model and reasoning-model scenarios. */
export interface ConformanceOptions {
  readonly reasoning: ReasoningStyle;
  /** Whether the provider reports prompt-cache writes (Anthropic) besides cache reads (default false). */
  readonly cacheWrites?: boolean;
}

/** The price the cache scenario is billed at: every rate different, so a token counted at the wrong one shows. */
const CACHE_PRICING = { default: { input: 3, output: 15, cachedInput: 0.3, cacheWrite: 3.75 } };

interface Outcome {
  readonly result: AgentResult;
  readonly runs: readonly ToolRun[];
}

async function runScenario(
  scenario: ConformanceScenario,
  model: Model,
  happyTokens: number,
  onEvent?: (event: AgentStreamEvent) => void,
  priced = false,
): Promise<Outcome> {
  const { registry, runs } = makeWeatherRegistry();
  // No reply reserve: the adapters' maxReplyTokens would reserve room the scripted model does not
  // announce; that default has its own test. Here both must spend exactly the same.
  const limits = { ...scenario.limits(happyTokens), replyReserve: 0, ...(priced ? { pricing: CACHE_PRICING } : {}) };
  const result = await runAgent(
    scenario.task,
    model,
    registry,
    onEvent === undefined ? limits : { ...limits, onEvent },
  );
  return { result, runs };
}

async function runConnected(
  connect: ConnectModel,
  scenario: ConformanceScenario,
  replies: readonly ModelReply[],
  happyTokens: number,
  onEvent?: (event: AgentStreamEvent) => void,
  priced = false,
): Promise<Outcome> {
  const connected = await connect(replies, scenario);
  try {
    const outcome = await runScenario(scenario, connected.model, happyTokens, onEvent, priced);
    expect(connected.violations, "requests the fake server refused").toEqual([]);
    return outcome;
  } finally {
    await connected.close();
  }
}

/** The replies with the usage a provider reports (event streams always carry it), above the core's estimate of each prompt. */
function withUsage(replies: readonly ModelReply[]): ModelReply[] {
  return replies.map((reply, index) => ({
    ...reply,
    usage: { inputTokens: 500 + 100 * index, outputTokens: 12 + index },
  }));
}

/** The replies with usage that reads the prompt cache from the second call on (and writes it, where the provider says so). */
function withCacheUsage(replies: readonly ModelReply[], writes: boolean): ModelReply[] {
  return replies.map((reply, index) => ({
    ...reply,
    usage: {
      inputTokens: 500 + 100 * index,
      outputTokens: 12 + index,
      ...(index > 0 ? { cachedInputTokens: 400 + 90 * (index - 1) } : {}),
      ...(writes ? { cacheWriteTokens: 90 } : {}),
    },
  }));
}

/**
 * Declares the conformance suite for one adapter. Every scenario (the spec's, then a thinking-model
 * and a reasoning-model one in the provider's `reasoning` style) runs through `scriptedModel` and
 * through the adapter over HTTP, and the two `AgentResult`s (trace, status, answer, steps, tokens)
 * and the logs of real tool executions must be deep-equal. Then, with the usage a provider reports,
 * the adapter runs once more streaming (a run with `onEvent`, which calls the model with
 * `onDelta`): scripted, plain and streamed results must all be equal, and each step's deltas must
 * add up to its reply.
 */
export function describeConformance(label: string, connect: ConnectModel, options: ConformanceOptions): void {
  describe(`conformance: ${label} behaves as the scripted model`, () => {
    let happyTokens = 0;
    let happyTokensWithUsage = 0;

    beforeAll(async () => {
      happyTokens = (await runAgent(WEATHER_TASK, scriptedModel(happyScript()), makeWeatherRegistry().registry)).tokens;
      const usageRun = await runAgent(
        WEATHER_TASK,
        scriptedModel(withUsage(happyScript())),
        makeWeatherRegistry().registry,
      );
      happyTokensWithUsage = usageRun.tokens;
    });

    for (const scenario of [...CONFORMANCE_SCENARIOS, ...reasoningScenarios(options.reasoning)]) {
      it(scenario.name, async () => {
        const expected = await runScenario(scenario, scriptedModel(scenario.replies()), happyTokens);
        const actual = await runConnected(connect, scenario, scenario.replies(), happyTokens);
        expect(expected.result.status).toBe(scenario.status);
        expect(actual.result).toStrictEqual(expected.result);
        expect(actual.runs).toEqual(expected.runs);
      });

      it(`${scenario.name} (streamed and not, with usage)`, async () => {
        const replies = withUsage(scenario.replies());
        const expected = await runScenario(scenario, scriptedModel(replies), happyTokensWithUsage);
        const plain = await runConnected(connect, scenario, replies, happyTokensWithUsage);
        const events: AgentStreamEvent[] = [];
        const streamed = await runConnected(connect, scenario, replies, happyTokensWithUsage, (event) =>
          events.push(event),
        );
        const problems = deltaMismatches(events);
        expect(expected.result.status).toBe(scenario.status);
        expect(plain.result).toStrictEqual(expected.result);
        expect(streamed.result).toStrictEqual(expected.result);
        expect(streamed.runs).toEqual(expected.runs);
        expect(problems, "deltas that do not add up to their reply").toEqual([]);
      });
    }

    it("the happy path with prompt-cache usage, priced (streamed and not): the same usage, tokens and cost", async () => {
      const scenario = CONFORMANCE_SCENARIOS[0] as ConformanceScenario;
      const replies = withCacheUsage(scenario.replies(), options.cacheWrites ?? false);
      const tokens = happyTokensWithUsage * 2;
      const expected = await runScenario(scenario, scriptedModel(replies), tokens, undefined, true);
      const plain = await runConnected(connect, scenario, replies, tokens, undefined, true);
      const streamed = await runConnected(connect, scenario, replies, tokens, () => {}, true);
      expect(expected.result.status).toBe(scenario.status);
      expect(expected.result.cost).toBeGreaterThan(0);
      expect(plain.result).toStrictEqual(expected.result);
      expect(streamed.result).toStrictEqual(expected.result);
    });
  });
}
