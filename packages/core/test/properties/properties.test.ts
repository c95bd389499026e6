import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createActor, toPromise } from "xstate";
import { agentMachine, contentText, countTokens, final, runAgent, scriptedModel } from "../../src/index.js";
import { DEFAULT_SYSTEM, driveEffects } from "../../src/machine.js";
import {
  assignedIds,
  assistantWith,
  type Execution,
  expectedContent,
  inputOf,
  makeRegistry,
  planArb,
  run,
  scriptOf,
  TOOL_NAMES,
} from "../run/spec-plans.js";
import { STATE_OF, traceProblem } from "../run/trace.js";

describe("runAgent over random model scripts", () => {
  it("pairs one tool message with each call, keeps the limits, recounts its tokens and runs every valid call, repeats too", async () => {
    await fc.assert(
      fc.asyncProperty(planArb, async (plan) => {
        const { result, seen, executions, specs } = await run(plan);
        const script = scriptOf(plan);
        const n = result.steps;

        // One step = one model call, never more than maxSteps.
        expect(seen.length).toBe(n);
        expect(n).toBeLessThanOrEqual(plan.maxSteps);

        // The list: system, task, then each assistant message followed by exactly its calls' tool messages.
        const { messages } = result;
        expect(messages[0]).toEqual({ role: "system", content: plan.system ?? DEFAULT_SYSTEM });
        expect(messages[1]).toEqual({ role: "user", content: plan.task });
        const ran: Execution[] = [];
        const ids = assignedIds(script, n);
        let at = 2;
        let spent = 0;
        for (const [i, planned] of script.slice(0, n).entries()) {
          // The model was shown exactly the list so far: a prefix of the final list, 2 + everything before.
          expect(seen[i]).toEqual(messages.slice(0, at));
          const prompt = countTokens(specs) + countTokens(seen[i]);
          expect(spent + prompt).toBeLessThanOrEqual(plan.tokenBudget); // checked BEFORE the call
          // The run's ids: the model's, unless blank or taken; the calls are the model's otherwise.
          const assistant = assistantWith(planned, ids[i]);
          spent += prompt + countTokens(assistant);
          expect(messages[at]).toEqual(assistant);
          at += 1;
          for (const [j, { call, kind }] of planned.calls.entries()) {
            const message = messages[at];
            const content = message?.role === "tool" ? message.content : "";
            // A failure is marked as one: the trace of a log of schema 2.
            expect(message).toEqual({
              role: "tool",
              toolCallId: ids[i]?.[j],
              name: call.name,
              content: expect.any(String),
              ...(contentText(content).startsWith("ERROR:") ? { isError: true } : {}),
            });
            // With the spec's defaults nothing is refused as a repeat: the same call again runs again.
            if (kind === "returns") {
              expect(content).toBe(expectedContent(call));
              ran.push({ name: call.name, args: call.args });
            } else if (kind === "throws") {
              expect(content).toMatch(/^ERROR: .*RangeError.*boom went the tool/);
              ran.push({ name: call.name, args: call.args });
            } else if (kind === "invalid") {
              expect(content).toMatch(/^ERROR: /);
              expect(content).toContain(`${call.name} expects`);
            } else {
              expect(content).toMatch(/^ERROR: .*unknown tool/);
              for (const name of TOOL_NAMES) expect(content).toContain(`'${name}'`);
            }
            at += 1;
          }
        }
        expect(messages.length).toBe(at);
        expect(traceProblem(messages)).toBeNull();

        // Nothing ran for an invalid or unknown call; every valid call that was reached ran once, taken up in call
        // order whatever the concurrency.
        expect(executions).toEqual(ran);
        // Ids are unique in the run, so a decision or a result can be given to one call only.
        expect(new Set(ids.flat()).size).toBe(ids.flat().length);

        // Tokens: every prompt plus every reply, recounted from what the model was shown.
        expect(result.tokens).toBe(spent);
        const lastReply = n === 0 ? 0 : countTokens(messages.filter((m) => m.role === "assistant").at(-1));
        // The check is before the call and the reply is not reserved: only the last reply can overspend.
        expect(result.tokens).toBeLessThanOrEqual(plan.tokenBudget + lastReply);

        // The status says which exit was taken, and only `done` has an answer.
        const last = script[n - 1];
        if (result.status === "done") {
          expect(last?.calls).toEqual([]);
          expect(result.answer).toBe(last?.reply.content);
        } else {
          expect(result.answer).toBeNull();
          expect(n === 0 || (last?.calls.length ?? 0) > 0).toBe(true);
        }
        if (result.status === "step_limit") expect(n).toBe(plan.maxSteps);
        if (result.status === "token_budget") {
          expect(n).toBeLessThan(plan.maxSteps);
          expect(spent + countTokens(specs) + countTokens(messages)).toBeGreaterThan(plan.tokenBudget);
        }

        // Messages are frozen: nothing can edit them after they were appended.
        for (const message of messages) {
          expect(Object.isFrozen(message)).toBe(true);
          expect(Reflect.set(message, "content", "edited")).toBe(false);
        }
      }),
      { numRuns: 120 },
    );
  });

  it("ends in the state its status names, one call at a time or not, and a bare actor driven by driveEffects gives the same output", async () => {
    await fc.assert(
      fc.asyncProperty(planArb, async (plan) => {
        const { result } = await run(plan);
        const { registry } = makeRegistry();
        const model = scriptedModel(scriptOf(plan).map((p) => p.reply));
        const input = inputOf(plan, registry, model);
        const actor = createActor(agentMachine, { input });
        const output = toPromise(actor);
        const failures: unknown[] = [];
        driveEffects(actor, { model, registry }, (error) => failures.push(error));
        actor.start();
        expect(await output).toEqual(result);
        expect(failures).toEqual([]);
        const snapshot = actor.getSnapshot();
        expect(snapshot.status).toBe("done");
        expect(snapshot.value).toBe(STATE_OF[result.status]);
        expect(snapshot.context.status).toBe(result.status);
        expect(snapshot.context.answer !== null).toBe(result.status === "done");
        // However many calls may run at once, the result is the same.
        const serial = { ...plan, toolConcurrency: 1 };
        expect((await run(serial)).result).toEqual(result);
      }),
      { numRuns: 80 },
    );
  });

  it("the reply is not reserved: a budget of exactly the first prompt still lets a long answer through", async () => {
    const { registry } = makeRegistry();
    const model = scriptedModel([final("x".repeat(400))]);
    const first =
      countTokens(registry.specs()) +
      countTokens([
        { role: "system", content: DEFAULT_SYSTEM },
        { role: "user", content: "t" },
      ]);
    const result = await runAgent("t", model, registry, { tokenBudget: first });
    expect(result.status).toBe("done");
    expect(result.tokens).toBeGreaterThan(first);
    const stopped = await runAgent("t", scriptedModel([final("never")]), registry, { tokenBudget: first - 1 });
    expect([stopped.status, stopped.steps, stopped.tokens]).toEqual(["token_budget", 0, 0]);
  });
});
