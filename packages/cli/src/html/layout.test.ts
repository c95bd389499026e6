import { agentMachine } from "@agentloop/core";
import { describe, expect, it } from "vitest";
import { chartOf } from "../chart/statechart.js";
import { type Box, layoutChart } from "./layout.js";

const chart = chartOf(agentMachine);
const layout = layoutChart(chart);
const overlap = (a: Box, b: Box) =>
  a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
const within = (inner: Box, outer: Box) =>
  inner.x >= outer.x &&
  inner.y >= outer.y &&
  inner.x + inner.width <= outer.x + outer.width &&
  inner.y + inner.height <= outer.y + outer.height;

describe("layoutChart on agentMachine", () => {
  const leaves = chart.nodes.filter((node) => !chart.nodes.some((child) => child.parent === node.id));
  const frames = chart.nodes.filter((node) => node.kind === "compound");

  it("gives every state a box, and no two leaves overlap", () => {
    for (const node of chart.nodes) expect(layout.boxes.get(node.id)).toBeDefined();
    const boxes = leaves.map((leaf) => layout.boxes.get(leaf.id) as Box);
    boxes.forEach((a, i) => {
      for (const b of boxes.slice(i + 1)) expect(overlap(a, b)).toBe(false);
    });
  });

  it("frames a compound state around its own leaves and no other state", () => {
    for (const frame of frames) {
      const box = layout.boxes.get(frame.id) as Box;
      for (const leaf of leaves) {
        const inside = leaf.id.startsWith(`${frame.id}.`);
        expect(
          inside ? within(layout.boxes.get(leaf.id) as Box, box) : overlap(layout.boxes.get(leaf.id) as Box, box),
        ).toBe(inside);
      }
    }
  });

  it("puts the initial state in the first column and every reached state after the one it comes from", () => {
    expect(layout.columns.get("agent.budgetCheck")).toBe(0);
    expect(layout.columns.get("agent.callingModel")).toBe(1);
    expect(layout.columns.get("agent.executingTools.runningTool")).toBeGreaterThan(
      layout.columns.get("agent.executingTools.nextCall") ?? 0,
    );
  });
});
