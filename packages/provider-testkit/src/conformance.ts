import { type AgentResult, type Model, type ModelReply, runAgent, scriptedModel } from "@agentloop/core";
import { beforeAll, describe, expect, it } from "vitest";
import { CONFORMANCE_SCENARIOS, type ConformanceScenario, happyScript } from "./scenarios.js";
import { makeWeatherRegistry, type ToolRun, WEATHER_TASK } from "./weather.js";

/** An adapter wired to a fake server that will answer with `replies`, in order. */
export interface ConnectedModel {
  readonly model: Model;
  /** Wire-format problems the fake server found in the adapter's requests. */
  readonly violations: readonly string[];
  close(): Promise<void>;
}

/** Builds an adapter whose fake server carries the same replies a scripted model would return. */
export type ConnectModel = (replies: readonly ModelReply[]) => Promise<ConnectedModel>;

interface Outcome {
  readonly result: AgentResult;
  readonly runs: readonly ToolRun[];
}

async function runScenario(scenario: ConformanceScenario, model: Model, happyTokens: number): Promise<Outcome> {
  const { registry, runs } = makeWeatherRegistry();
  // No reply reserve: the adapters' maxReplyTokens would reserve room the scripted model does not
  // announce; that default has its own test. Here both must spend exactly the same.
  const result = await runAgent(scenario.task, model, registry, { ...scenario.limits(happyTokens), replyReserve: 0 });
  return { result, runs };
}

/**
 * Declares the conformance suite for one adapter: every spec scenario runs once through
 * `scriptedModel` and once through the adapter over HTTP, and the two `AgentResult`s (trace,
 * status, answer, steps, tokens) and the logs of real tool executions must be deep-equal.
 */
export function describeConformance(label: string, connect: ConnectModel): void {
  describe(`conformance: ${label} behaves as the scripted model`, () => {
    let happyTokens = 0;

    beforeAll(async () => {
      const { registry } = makeWeatherRegistry();
      happyTokens = (await runAgent(WEATHER_TASK, scriptedModel(happyScript()), registry)).tokens;
    });

    for (const scenario of CONFORMANCE_SCENARIOS) {
      it(scenario.name, async () => {
        const expected = await runScenario(scenario, scriptedModel(scenario.replies()), happyTokens);
        const connected = await connect(scenario.replies());
        let actual: Outcome;
        try {
          actual = await runScenario(scenario, connected.model, happyTokens);
        } finally {
          await connected.close();
        }
        expect(connected.violations).toEqual([]);
        expect(expected.result.status).toBe(scenario.status);
        expect(actual.result).toStrictEqual(expected.result);
        expect(actual.runs).toEqual(expected.runs);
      });
    }
  });
}
