import { readFileSync } from "node:fs";
import { join } from "node:path";
import { agentMachine } from "@agentloop/core";
import { beforeAll, describe, expect, it } from "vitest";
import type { AnyStateNode } from "xstate";
import { cli, cliWeatherRun, tempDir } from "../cli.js";

/** The machine's definition, walked here independently of the CLI: states, and transitions as source, event, target. */
interface Walked {
  readonly states: { id: string; key: string; final: boolean; parent: string | null }[];
  readonly transitions: { source: string; event: string; target: string | null; guarded: boolean }[];
}

function walk(node: AnyStateNode, into: Walked = { states: [], transitions: [] }): Walked {
  into.states.push({ id: node.id, key: node.key, final: node.type === "final", parent: node.parent?.id ?? null });
  for (const [event, list] of Object.entries(node.on)) {
    for (const t of list)
      into.transitions.push({
        source: node.id,
        event,
        target: t.target?.[0]?.id ?? null,
        guarded: t.guard !== undefined,
      });
  }
  for (const t of node.always ?? []) {
    into.transitions.push({
      source: node.id,
      event: "always",
      target: t.target?.[0]?.id ?? null,
      guarded: t.guard !== undefined,
    });
  }
  for (const child of Object.values(node.states)) walk(child, into);
  return into;
}

const machine = walk(agentMachine.root);
const mermaidName = (id: string) => (id === "agent" ? "agent_any" : id.slice("agent.".length).replaceAll(".", "_"));
const dir = tempDir();
const log = join(dir, "w.jsonl");

beforeAll(async () => {
  const run = await cliWeatherRun(dir, ["--run-id", "w", "x"]);
  expect(run.code).toBe(0);
});

describe("agentloop graph", () => {
  it("the walk itself sees the machine's nested and final states and its eventless transitions", () => {
    const ids = machine.states.map((state) => state.id);
    expect(ids).toEqual(
      expect.arrayContaining(["agent.executingTools.runningTools", "agent.executingTools.awaitingDecision"]),
    );
    expect(machine.states.filter((state) => state.final).map((state) => state.key)).toContain("refused");
    expect(machine.transitions.some((t) => t.event === "always" && t.guarded)).toBe(true);
    expect(machine.transitions.some((t) => t.source === "agent" && t.event === "run.cancelled")).toBe(true);
  });

  it("json holds exactly the machine's states and transitions", async () => {
    const { code, stdout } = await cli(["graph", "--format", "json"]);
    expect(code).toBe(0);
    const chart = JSON.parse(stdout) as {
      id: string;
      nodes: { id: string; kind: string; parent: string | null }[];
      edges: { source: string; event: string; target: string | null; guard: string | null }[];
    };
    expect(chart.id).toBe("agent");
    expect(chart.nodes.map((node) => [node.id, node.parent, node.kind === "final"])).toEqual(
      machine.states.map((s) => [s.id, s.parent, s.final]),
    );
    expect(chart.edges.map((edge) => [edge.source, edge.event, edge.target, edge.guard !== null])).toEqual(
      machine.transitions.map((t) => [t.source, t.event, t.target, t.guarded]),
    );
  });

  it("mermaid (the default) declares every state and draws every transition", async () => {
    const { code, stdout } = await cli(["graph"]);
    expect(code).toBe(0);
    expect(stdout.startsWith("stateDiagram-v2\n")).toBe(true);
    for (const state of machine.states.filter((s) => s.parent !== null)) {
      expect(stdout).toContain(`state "${state.key}" as ${mermaidName(state.id)}`);
      if (state.final) expect(stdout).toContain(`  ${mermaidName(state.id)} --> [*]`);
    }
    const arrows = stdout.split("\n").filter((line) => / --> (?!\[\*\])\S+ : /.test(line));
    expect(arrows).toHaveLength(machine.transitions.length);
    for (const t of machine.transitions) {
      const line = `${mermaidName(t.source)} --> ${mermaidName(t.target ?? t.source)} : ${t.event}${t.guarded ? " [" : ""}`;
      expect(arrows.some((arrow) => arrow.trim().startsWith(line))).toBe(true);
    }
  });

  it("dot declares every state (compound ones as clusters) and draws every transition on its own state", async () => {
    const { code, stdout } = await cli(["graph", "--format", "dot"]);
    expect(code).toBe(0);
    expect(stdout).toMatch(/^digraph "agent" \{/);
    const labelOf = (id: string) => {
      const compound = machine.states.some((s) => s.parent === id);
      const pattern = compound
        ? new RegExp(`subgraph "cluster_${id.replaceAll(".", "\\.")}" \\{\\n\\s*label="([^"]*)"`)
        : new RegExp(`^\\s*"${id.replaceAll(".", "\\.")}" \\[label="([^"]*)"`, "m");
      return pattern.exec(stdout)?.[1] ?? null;
    };
    for (const state of machine.states.filter((s) => s.parent !== null)) {
      expect(labelOf(state.id)?.split("\\n")[0]).toBe(state.key);
      if (state.final) expect(stdout).toContain(`"${state.id}" [label="${state.key}", peripheries=2`);
    }
    const edges = stdout.split("\n").filter((line) => line.includes(" -> ") && !line.includes('"__start"'));
    const targeted = machine.transitions.filter((t) => t.target !== null);
    expect(edges).toHaveLength(targeted.length);
    for (const t of targeted) {
      // An edge leaves its own state: the state itself, or its cluster (ltail) for a compound one.
      const compound = t.source !== "agent" && machine.states.some((s) => s.parent === t.source);
      const from = compound ? `ltail="cluster_${t.source}"` : `"${t.source}" -> `;
      expect(edges.some((edge) => edge.includes(from) && edge.includes(`label="${t.event}`))).toBe(true);
    }
    // A transition that stays in its state is written inside that very state, a compound one too.
    for (const t of machine.transitions.filter((t) => t.target === null)) {
      const lines = (t.source === "agent" ? null : labelOf(t.source))?.split("\\n") ?? [];
      expect(lines.some((line) => line.startsWith(t.event))).toBe(true);
    }
    expect(edges.some((edge) => edge.includes('label="run.cancelled"'))).toBe(true);
  });

  it("--run marks the states the run entered and the transitions it took", async () => {
    const { code, stdout } = await cli(["graph", "--format", "json", "--run", log]);
    expect(code).toBe(0);
    const chart = JSON.parse(stdout) as {
      nodes: { id: string; visits: number; end: boolean }[];
      edges: { id: string; taken: number }[];
    };
    const visits = Object.fromEntries(chart.nodes.map((node) => [node.id, node.visits]));
    expect(visits).toMatchObject({
      "agent.budgetCheck": 4,
      "agent.callingModel": 4,
      "agent.executingTools.nextCalls": 3,
      "agent.executingTools.runningTools": 3,
      "agent.executingTools.awaitingDecision": 0,
      "agent.done": 1,
      "agent.stepLimit": 0,
      "agent.cancelled": 0,
    });
    expect(chart.nodes.filter((node) => node.end).map((node) => node.id)).toEqual(["agent.done"]);
    const taken = Object.fromEntries(chart.edges.map((edge) => [edge.id, edge.taken]));
    expect(taken).toMatchObject({
      "agent.callingModel:model.replied:0": 0,
      "agent.callingModel:model.replied:1": 3,
      "agent.callingModel:model.replied:4": 1,
      "agent.executingTools.runningTools:tool.finished:1": 3,
      "agent.executingTools.nextCalls:always:3": 3,
      "agent.budgetCheck:always:0": 0,
    });
  });

  it("--run marks the path in mermaid and dot too", async () => {
    const [mermaid, dot] = await Promise.all([
      cli(["graph", "--run", log]),
      cli(["graph", "--format", "dot", "--run", log]),
    ]);
    expect(mermaid.stdout).toContain("callingModel --> done : model.replied / appendReply (taken 1×)");
    expect(mermaid.stdout).toMatch(/^ {2}class .*\bcallingModel\b.* visited$/m);
    expect(mermaid.stdout).toContain("  class done ended");
    expect(dot.stdout).toMatch(
      /"agent\.callingModel" -> "agent\.done" \[label="model\.replied \/ appendReply \(×1\)".*penwidth=2\.5/,
    );
    expect(dot.stdout).toContain('"agent.done" [label="done", peripheries=2, fillcolor="#fde68a", penwidth=3]');
  });

  it("--output writes the chart to a file", async () => {
    const file = join(dir, "chart.mmd");
    const [written, printed] = await Promise.all([cli(["graph", "--output", file]), cli(["graph"])]);
    expect(written).toMatchObject({ code: 0, stdout: "" });
    expect(readFileSync(file, "utf8")).toBe(printed.stdout);
  });
});
