import { createInspector, type StatelyInspectionEvent } from "@statelyai/inspect";
import { describe, expect, it, vi } from "vitest";
import { type AnyStateNode, createActor } from "xstate";
import { hangGuard } from "../../../../hang-guard.js";
import { agentMachine, asks, createAgentActor, final, scriptedModel, toolCall } from "../../src/index.js";
import { makeMailRegistry, testWorkflow, until } from "./agent-workflow.js";

interface Definition {
  readonly states?: Record<string, Definition>;
}

function statePaths(node: Definition, path: string[] = []): string[] {
  return Object.entries(node.states ?? {}).flatMap(([name, child]) => [
    [...path, name].join("."),
    ...statePaths(child, [...path, name]),
  ]);
}

/** Every state path of the machine's own state nodes. */
function machineStates(node: AnyStateNode): string[] {
  const own = node.path.length > 0 ? [node.path.join(".")] : [];
  return [...own, ...Object.values(node.states).flatMap(machineStates)];
}

describe("Stately inspector, given the parent's inspect", () => {
  it("shows the agent as a child actor with the agent machine's chart, its states moving, and the machine's events", async () => {
    const sent: StatelyInspectionEvent[] = [];
    const inspector = createInspector({ send: (event) => sent.push(event) });
    inspector.start();
    const { registry } = makeMailRegistry();
    const model = scriptedModel([asks(toolCall("e1", "send_email", { to: "ana@example.com" })), final("Sent.")]);
    const workflow = testWorkflow(createAgentActor({ model, registry }), { task: "Email Ana." });
    const parent = createActor(workflow, { inspect: inspector.inspect }).start();
    await until(parent, (s) => s.context.requests.length === 1);
    parent.getSnapshot().children.agent?.send({ type: "agent.decide", decisions: { e1: { approved: true } } });
    await until(parent, (s) => s.status === "done");

    // The inspector hands events on when the event loop is idle.
    const child = await vi.waitFor(
      () => {
        const found = sent.find((event) => event.type === "@xstate.actor" && event.name === "agent");
        if (found?.type !== "@xstate.actor") throw new Error("no @xstate.actor event for the agent yet");
        return found;
      },
      { timeout: hangGuard(45_000) },
    );
    expect(child.parentId).toBe(parent.sessionId);
    const definition = JSON.parse(String(child.definition)) as Definition;
    expect(statePaths(definition).sort()).toEqual(machineStates(agentMachine.root).sort());

    const values = () =>
      sent.flatMap((event) =>
        event.type === "@xstate.snapshot" && event.sessionId === child.sessionId
          ? [JSON.stringify((event.snapshot as { value?: unknown }).value)]
          : [],
      );
    await vi.waitFor(() => expect(values().at(-1)).toBe('"done"'), { timeout: hangGuard(45_000) });
    expect(values()).toEqual(
      expect.arrayContaining(['"callingModel"', '{"executingTools":"awaitingDecision"}', '"done"']),
    );
    const received = sent.flatMap((event) =>
      event.type === "@xstate.event" && event.sessionId === child.sessionId ? [event.event.type] : [],
    );
    expect(received).toEqual(
      expect.arrayContaining(["model.replied", "agent.decide", "approval.decided", "tool.finished"]),
    );
    inspector.stop();
  });
});
