import { ToolRegistry } from "@agentloop/core";
import { final } from "@agentloop/core/testing";
import { describe, expect, it } from "vitest";
import * as port from "./core-port.js";
import { resolveRunSettings, startMachine } from "./core-port.js";

describe("core-port", () => {
  // Regression test; before the change: this module re-implemented the model call (copy, check, unique ids,
  // ModelError), the tool run and the lost result, and the log's stamps, beside core's own. Expected: it
  // adapts the machine only; requests are performed by core's performers and stamped with core's LogStamps.
  it("keeps no copy of core's performers or stamps, only the machine's adapter", () => {
    expect(Object.keys(port).sort()).toEqual(
      ["LogStamps", "SCHEMA_VERSION", "decodeStarted", "finishedEvent", "resolveRunSettings", "startMachine"].sort(),
    );
  });

  it("names each journaled step by the model call and the call's place in its reply", () => {
    const registry = new ToolRegistry();
    registry.register("x", "X.", { type: "object" }, () => "ok");
    const settings = resolveRunSettings("t", { toolConcurrency: 2 }, () => final("done"), registry);
    const machine = startMachine(settings);
    const keys = () => machine.driven.takeRequests().map((request) => machine.keyOf(request));
    expect(keys()).toEqual(["model 1"]);
    machine.driven.send({
      type: "model.replied",
      reply: {
        content: "",
        toolCalls: [
          { id: "a", name: "x", args: {} },
          { id: "b", name: "x", args: {} },
        ],
      },
    });
    expect(keys()).toEqual(["tool 1.0 a", "tool 1.1 b"]);
    expect(machine.position()).toMatchObject({ state: "executingTools.runningTools", steps: 1, awaitingDecision: [] });
    machine.stop();
  });
});
