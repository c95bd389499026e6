import { describe, expect, it } from "vitest";
import { createActor } from "xstate";
import type { RunEvent } from "../../data/index.js";
import { agentMachine } from "../../decide/index.js";
import { drivenMachine, type LoopAnswer, type Performance, type Performing, RunLoop } from "../../driver.js";
import { asks, final, scriptedModel, toolCall } from "../../testing/index.js";
import { ToolRegistry } from "../../tools/index.js";
import { InProcess, lostResult } from "../index.js";
import { resolveSettings } from "../options/index.js";

/** Performs in this process, and notes each request it was handed: how a durable engine sits in the loop. */
class Noting implements Performing {
  readonly inner = new InProcess();
  readonly handed: string[] = [];
  get idle(): boolean {
    return this.inner.idle;
  }
  perform(performance: Performance): void {
    this.handed.push(performance.request.type);
    this.inner.perform(performance);
  }
  push(answer: LoopAnswer): void {
    this.inner.push(answer);
  }
  next(): LoopAnswer | Promise<LoopAnswer> {
    return this.inner.next();
  }
}

function runOf(performing: Performing, journal?: { commit(event: RunEvent): Promise<boolean> }) {
  const registry = new ToolRegistry();
  let runs = 0;
  registry.register("pay", "Pays.", { type: "object" }, () => {
    runs++;
    return "paid";
  });
  const model = scriptedModel([asks(toolCall("p", "pay")), final("done")]);
  const actor = createActor(agentMachine, { input: { settings: resolveSettings("t", model, registry, {}) } });
  const interrupted = new Set<string>();
  const loop = new RunLoop(drivenMachine(actor), { model, registry, performing, journal }, interrupted);
  actor.start();
  return { loop, interrupted, actor, runs: () => runs };
}

describe("the run loop's performing", () => {
  // Regression test; before the change: the loop performed every request in its own process and
  // took the answers as they came, so a durable engine (Restate) ran a loop of its own beside it.
  // Expected: the work and its answers go through the `performing` the ports name.
  it("hands every request's work to the performing the ports name, and takes its answers from it", async () => {
    const noting = new Noting();
    const { loop } = runOf(noting);
    expect(await loop.run()).toMatchObject({ type: "ended", result: { status: "done" } });
    expect(noting.handed).toEqual(["callModel", "runTool", "callModel"]);
  });

  it("runs a call as interrupted when the journal, logging its start, finds it started by an earlier attempt", async () => {
    const logged: RunEvent[] = [];
    let marked: Set<string> | null = null;
    const journal = {
      commit: async (event: RunEvent) => {
        logged.push(event);
        if (event.type === "tool.started") marked?.add(event.callId);
        return true;
      },
    };
    const run = runOf(new InProcess(), journal);
    marked = run.interrupted;
    expect(await run.loop.run()).toMatchObject({ type: "ended" });
    expect(run.runs()).toBe(0);
    expect(logged.find((event) => event.type === "tool.finished")).toMatchObject({
      content: lostResult(toolCall("p", "pay")),
    });
  });
});
