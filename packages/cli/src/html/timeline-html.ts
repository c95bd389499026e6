import { type Chart, stateName } from "../chart/statechart.js";
import type { Move } from "../trace/run-trace.js";
import { escapeHtml } from "./escape.js";

/** The moves one event made, as the report's timeline shows them: `→ state [guard]`, `↺ state` for a transition that stays. */
export function movesHtml(chart: Chart, moves: readonly Move[]): string {
  return moves
    .map((move) => {
      const label = stateName(chart, move.state);
      const edge = move.edges.map((id) => chart.edges.find((e) => e.id === id)).find(Boolean);
      const guard = edge?.guard ? ` <span class="guard">[${escapeHtml(edge.guard)}]</span>` : "";
      const loop = edge !== undefined && edge.target === null ? "↺ " : move.edges.length === 0 ? "" : "→ ";
      return `<span class="move">${loop}<span class="state-name">${escapeHtml(label)}</span>${guard}</span>`;
    })
    .join(" ");
}
