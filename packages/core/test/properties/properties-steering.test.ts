import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { hangGuard } from "../../../../hang-guard.js";
import {
  asks,
  askUserTool,
  final,
  MemoryEventStore,
  type ModelReply,
  type PrepareStep,
  replayRun,
  resumeAgent,
  runAgent,
  type StepSettings,
  scriptedModel,
  toolCall,
} from "../../src/index.js";
import { makeWeatherRegistry } from "../../src/testing.js";

const TOOLS = ["get_weather", "c_to_f", "ask_user"] as const;

const settingsArb: fc.Arbitrary<StepSettings | undefined> = fc.oneof(
  fc.constant(undefined),
  fc.subarray([...TOOLS]).map((activeTools) => ({ activeTools })),
  fc.constant({ toolChoice: "none" as const }),
  fc.constant({ system: "Be brief." }),
);

const replyArb = (step: number): fc.Arbitrary<ModelReply> =>
  fc.oneof(
    fc.constant(final(`answer ${step}`)),
    fc.constant(asks(toolCall(`w${step}`, "get_weather", { city: "Pune" }))),
    fc.constant(
      asks(toolCall(`c${step}`, "c_to_f", { celsius: 30 }), toolCall(`q${step}`, "ask_user", { question: "Sure?" })),
    ),
  );

const runArb = fc.record({
  maxSteps: fc.integer({ min: 1, max: 4 }),
  settings: fc.array(settingsArb, { minLength: 6, maxLength: 6 }),
  replies: fc.tuple(...[1, 2, 3, 4, 5, 6].map(replyArb)),
});

describe("prepareStep and questions: property over random runs", () => {
  it(
    "never more model calls than maxSteps, no tool outside a step's offer runs, and the log replays to the live result",
    async () => {
      await fc.assert(
        fc.asyncProperty(runArb, async ({ maxSteps, settings, replies }) => {
          const { registry, runs } = makeWeatherRegistry();
          registry.add(askUserTool());
          const offered = new Map<number, StepSettings | undefined>();
          const prepareStep: PrepareStep = ({ step }) => {
            offered.set(step, settings[step - 1]);
            return settings[step - 1];
          };
          const model = scriptedModel(replies);
          const store = new MemoryEventStore();
          let result = await runAgent("How hot is Pune?", model, registry, {
            store,
            runId: "r",
            maxSteps,
            prepareStep,
          });
          // Every question is answered "yes" until the run ends.
          while (result.status === "awaiting_input") {
            const answers = Object.fromEntries((result.pendingQuestions ?? []).map((question) => [question.id, "yes"]));
            result = await resumeAgent("r", model, registry, { store, answers, prepareStep });
          }
          expect(result.steps).toBeLessThanOrEqual(maxSteps);
          expect(model.seen.length).toBe(result.steps);
          // A tool ran once for each of its results in the list: none ran for a refused call.
          const results = result.messages.filter(
            (m) => m.role === "tool" && m.isError !== true && m.name !== "ask_user",
          );
          expect(runs).toHaveLength(results.length);
          // Each tool that ran was offered in the step whose reply called it.
          for (const message of result.messages) {
            if (message.role !== "tool" || message.isError === true) continue;
            const step = Number(message.toolCallId.slice(1));
            const chosen = offered.get(step);
            expect(chosen?.toolChoice).not.toBe("none");
            if (chosen?.activeTools !== undefined) expect(chosen.activeTools).toContain(message.name);
          }
          const { runId: _runId, ...live } = result;
          expect(replayRun(await store.read("r")).result).toEqual(live);
        }),
        { numRuns: 60 },
      );
    },
    hangGuard(60_000),
  );
});
