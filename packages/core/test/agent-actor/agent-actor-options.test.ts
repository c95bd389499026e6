import { describe, expect, it } from "vitest";
import { createActor, waitFor } from "xstate";
import {
  type AgentActorInput,
  agentActor,
  createAgentActor,
  final,
  InMemoryMemoryStore,
  scriptedModel,
  ToolRegistry,
} from "../../src/index.js";
import { MemorySpendLedger } from "../../src/store.js";

const registry = new ToolRegistry();

/** The error an actor given `input` ends with before it runs anything, or undefined when it starts. */
function refusal(input: Record<string, unknown>): unknown {
  const model = scriptedModel([final("ok")]);
  const actor = createActor(agentActor, { input: { task: "t", model, registry, ...input } as AgentActorInput });
  const snapshot = actor.getSnapshot();
  return snapshot.status === "error" ? snapshot.error : undefined;
}

describe("options agentActor does not apply", () => {
  it.each([
    ["signal", { signal: new AbortController().signal }],
    ["maxStep", { maxStep: 3 }],
    ["ceiling", { ceiling: { owner: "acme", limits: { costPerDay: 1 }, ledger: new MemorySpendLedger() } }],
  ])("%s is refused in one line where the actor is given its input, and no model is called", (name, extra) => {
    const error = refusal(extra);
    expect(error).toBeInstanceOf(TypeError);
    expect((error as Error).message).toMatch(new RegExp(`^agentActor cannot take ${name}: `));
    if (name === "ceiling") expect((error as Error).message).toContain("would go on without, unheld");
    expect((error as Error).message).not.toContain("\n");
  });

  it("every option of runAgent but the signal is taken", async () => {
    expect(
      refusal({
        maxSteps: 2,
        tokenBudget: 10_000,
        retry: { attempts: 1 },
        fallbackModels: [],
        guardrails: { input: [] },
        output: { type: "object" },
        onEvent: () => {},
        compaction: { triggerTokens: 1000 },
      }),
    ).toBeUndefined();
  });

  it("takes the options runAgent gained after the actor (prepareStep, memory, name, owner), and its run applies them", async () => {
    const model = scriptedModel([final("ok")]);
    const steps: number[] = [];
    const input = {
      task: "t",
      model,
      registry,
      name: "helper",
      owner: { tenant: "acme", user: "ana" },
      memory: { store: new InMemoryMemoryStore(), scope: { resource: "ana" } },
      prepareStep: ({ step }: { readonly step: number }) => {
        steps.push(step);
        return undefined;
      },
    } satisfies AgentActorInput;
    const actor = createActor(agentActor, { input }).start();
    const ended = await waitFor(actor, (snapshot) => snapshot.status !== "active");
    expect(ended.error).toBeUndefined();
    expect(ended.output?.answer).toBe("ok");
    expect(steps).toEqual([1]);
  });

  it("createAgentActor refuses code it would not give a restored actor", () => {
    expect(() => createAgentActor({ signal: new AbortController().signal } as never)).toThrow(
      /^agentActor cannot take signal: /,
    );
    expect(() => createAgentActor({ model: scriptedModel([]), registry })).not.toThrow();
  });
});
