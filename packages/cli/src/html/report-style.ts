/** The report's stylesheet, inlined in the page. */
export const REPORT_CSS = `
:root { --ink: #0f172a; --muted: #64748b; --line: #cbd5e1; --visited: #dbeafe; --visited-ink: #1d4ed8;
  --end: #fde68a; --end-ink: #b45309; --taken: #c2410c; --error: #b91c1c; --error-bg: #fef2f2; --focus: #7c3aed;
  --pause: #ca8a04; --gap: #64748b; --interrupted: #dc2626; --turn: #4f46e5; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--ink); background: #f8fafc; }
header, section, footer, details.chart-section, .player, .pager, #children-place { max-width: 1720px; margin: 0 auto; padding: 12px 20px; }
header { display: grid; grid-template-columns: 1fr auto; gap: 4px 16px; align-items: baseline; }
h1 { font-size: 20px; margin: 0; } h2 { font-size: 15px; margin: 0 0 8px; color: #334155; }
h2 .count { color: var(--muted); font-weight: 400; margin-left: 8px; }
code { font: 12.5px ui-monospace, SFMono-Regular, Menlo, monospace; }
.task, .answer, .output, .tripped, .waits { grid-column: 1 / -1; margin: 0; }
.task { font-size: 15px; } .answer { color: #334155; }
.output { color: #334155; overflow-wrap: anywhere; }
.tripped { background: #fee2e2; color: #991b1b; border-radius: 8px; padding: 4px 10px; }
.waits { background: #fef9c3; color: #854d0e; border-radius: 8px; padding: 4px 10px; }
.outcome { font-weight: 600; padding: 3px 12px; border-radius: 999px; background: #e2e8f0; white-space: nowrap; }
.outcome.status-done { background: #dcfce7; color: #166534; }
.outcome.status-unfinished, .outcome.status-awaiting_approval { background: #fef9c3; color: #854d0e; }
.outcome.status-step_limit, .outcome.status-token_budget, .outcome.status-cost_budget, .outcome.status-repeated_call, .outcome.status-cancelled, .outcome.status-refused, .outcome.status-invalid_output, .outcome.status-guardrail_tripped, .outcome.status-model_failed { background: #ffedd5; color: #9a3412; }
.card { background: white; border: 1px solid #e2e8f0; border-radius: 12px; padding: 12px 14px; }
.questions .shape { font-size: 13px; color: #4b5563; }
.questions code { overflow-wrap: anywhere; }
.chart-scroll { overflow-x: auto; }
/* Drawn at its own size, scrolled sideways when wider than the page: labels stay legible at 100% zoom. */
svg.chart { display: block; margin: 0 auto; height: auto; font-family: system-ui, sans-serif; }
details.chart-section > summary { cursor: pointer; } details.chart-section > summary h2 { display: inline; }
svg .state > rect.box { fill: white; stroke: #64748b; stroke-width: 1.4; }
svg .state text.name { font-size: 13px; text-anchor: middle; fill: var(--ink); font-weight: 500; }
svg .state text.frame-label { font-size: 13px; text-anchor: start; font-weight: 600; fill: #475569; }
svg .state text.count { font-size: 11px; fill: var(--visited-ink); font-weight: 600; }
svg .state .divider { stroke: #cbd5e1; }
svg .state.final rect.inner { fill: none; stroke: #64748b; }
svg .state.compound > rect.box { fill: #f8fafc; stroke: #94a3b8; }
svg .state.any > rect.box { fill: #f1f5f9; stroke-dasharray: 5 4; }
svg .state.visited > rect.box { fill: var(--visited); stroke: var(--visited-ink); stroke-width: 2; }
svg .state.compound.visited > rect.box { fill: #eff6ff; }
svg .state.end > rect.box { fill: var(--end); stroke: var(--end-ink); stroke-width: 3; }
svg .edge path { fill: none; stroke: #64748b; stroke-width: 1.3; }
svg .edge.eventless path { stroke-dasharray: 5 3; }
svg text.label { font-size: 11px; fill: #334155; }
svg .edge-label text.label { text-anchor: middle; paint-order: stroke; stroke: white; stroke-width: 3px; stroke-linejoin: round; }
svg .edge.taken path { stroke: var(--taken); stroke-width: 2.4; }
svg .edge-label.taken text, svg .edge.internal.taken text { fill: var(--taken); font-weight: 600; }
svg .initial circle { fill: var(--ink); } svg .initial path { fill: none; stroke: var(--ink); stroke-width: 1.3; }
svg .state.focus > rect.box { stroke: var(--focus); stroke-width: 4; }
svg .edge.focus path { stroke: var(--focus); stroke-width: 3.5; }
svg .edge-label.focus text, svg .edge.internal.focus text { fill: var(--focus); font-weight: 700; }
.legend { display: flex; gap: 18px; flex-wrap: wrap; color: var(--muted); font-size: 12.5px; margin-bottom: 6px; }
.legend .key { display: inline-block; width: 14px; height: 10px; border-radius: 3px; margin-right: 5px; vertical-align: middle; }
.key.visited { background: var(--visited); border: 1px solid var(--visited-ink); } .key.end { background: var(--end); border: 1px solid var(--end-ink); }
.key.taken { background: var(--taken); } .key.focus { background: var(--focus); }
.player { display: flex; flex-wrap: wrap; gap: 4px 10px; align-items: center; color: var(--muted); font-size: 12.5px; position: sticky; top: 0; z-index: 2; background: #f8fafcee; }
.track { min-width: 12rem; }
.track { position: relative; flex: 1; padding-top: 12px; }
.track input { width: 100%; margin: 0; }
.marks { position: absolute; top: 0; left: 8px; right: 8px; height: 12px; }
.mark { position: absolute; top: 0; width: 6px; height: 12px; padding: 0; border: 0; border-radius: 2px; transform: translateX(-50%); cursor: pointer; }
.mark.pause, .mark.waiting { background: var(--pause); } .mark.interrupted { background: var(--interrupted); }
.mark.gap, .mark.unfinished { background: var(--gap); } .mark.turn { background: var(--turn); }
#step-label { min-width: 0; overflow-wrap: anywhere; color: #334155; font-variant-numeric: tabular-nums; }
.pager { display: flex; gap: 12px; align-items: center; color: var(--muted); font-size: 12.5px; padding-top: 0; padding-bottom: 0; }
.run-columns { max-width: 1720px; margin: 0 auto; display: grid; grid-template-columns: minmax(0, 3fr) minmax(0, 2fr); gap: 0 8px; }
.run-columns > section { max-width: none; margin: 0; min-width: 0; }
.conversation, .prompt { list-style: none; margin: 0; padding: 0 4px 0 0; max-height: 70vh; overflow-y: auto; position: relative; }
.said-entry { display: grid; grid-template-columns: 6ch minmax(0, 1fr); gap: 8px; align-items: start; margin: 6px 0; cursor: pointer; }
.said-entry .seq { padding-top: 8px; }
.said-entry.current .bubble, .said-entry.current .chip { box-shadow: 0 0 0 2px var(--focus); }
.bubble { background: white; border: 1px solid #e2e8f0; border-radius: 10px; padding: 6px 10px; min-width: 0; overflow-wrap: anywhere; }
.bubble p { margin: 2px 0; white-space: pre-wrap; }
.bubble .who, .chip .who { display: block; color: var(--muted); font-size: 12px; font-weight: 600; }
.chip .who { display: inline; }
.bubble.user { background: #eef2ff; border-color: #c7d2fe; } .bubble.assistant { background: #faf5ff; border-color: #e9d5ff; }
.bubble.tool { background: #f0f9ff; border-color: #bae6fd; } .bubble.tool.error { background: var(--error-bg); border-color: #fecaca; color: var(--error); }
.bubble code { white-space: pre-wrap; overflow-wrap: anywhere; }
.media { display: flex; flex-wrap: wrap; gap: 8px; margin: 4px 0; }
.media figure { margin: 0; max-width: 100%; }
.media img { display: block; max-width: min(100%, 360px); max-height: 240px; border: 1px solid #e2e8f0; border-radius: 6px; background: white; }
.media figcaption { color: var(--muted); font-size: 12px; overflow-wrap: anywhere; }
.calls { list-style: none; margin: 4px 0 0; padding: 0; } .calls li { margin: 2px 0; } .calls .args { margin-left: 4px; }
.chip { border-radius: 8px; padding: 4px 10px; font-size: 13px; background: #f1f5f9; overflow-wrap: anywhere; }
.chip.ok { background: #f0fdf4; } .chip.bad { background: var(--error-bg); } .chip.end { background: #dcfce7; font-weight: 600; }
.prompt-section h2, .conversation-section h2 { margin-top: 4px; }
.prompt li { padding: .25rem .4rem; border-bottom: 1px solid #e2e8f0; overflow-wrap: anywhere; font-size: 13px; }
.prompt li.msg { margin: 0; } .prompt li.gap { color: var(--muted); font-style: italic; }
.prompt li b { display: inline-block; min-width: 5.5rem; color: #4b5563; }
.timeline { list-style: none; margin: 0; padding: 0 4px 0 0; max-height: 78vh; overflow-y: auto; position: relative; }
.entry { background: white; border: 1px solid #e2e8f0; border-left: 4px solid var(--line); border-radius: 8px; padding: 6px 10px; margin: 6px 0; cursor: pointer; }
.entry.current { border-left-color: var(--focus); box-shadow: 0 0 0 2px #ede9fe; }
.entry.has-error { border-left-color: var(--error); }
.entry.type-run-finished { border-left-color: #16a34a; }
.note { margin: 6px 0; padding: 4px 10px; border-radius: 8px; font-size: 13px; font-weight: 600; }
.note::before { content: "▸ "; }
.note.pause, .note.waiting { background: #fef9c3; color: #854d0e; border: 1px dashed var(--pause); }
.note.interrupted { background: var(--error-bg); color: var(--error); border: 1px dashed var(--interrupted); }
.note.gap, .note.unfinished { background: #f1f5f9; color: #334155; border: 1px dashed var(--gap); }
.note.turn { background: #eef2ff; color: #3730a3; border: 1px solid #c7d2fe; margin-top: 14px; } .note.turn::before { content: "↪ "; }
.turn { color: var(--turn); font-weight: 600; }
.head { display: grid; grid-template-columns: 8ch 7ch 18ch minmax(0, 1fr); column-gap: 12px; align-items: baseline; }
.time, .seq { color: var(--muted); font: 12.5px ui-monospace, SFMono-Regular, Menlo, monospace; white-space: nowrap; }
.type { font-weight: 600; white-space: nowrap; } .detail { color: #334155; overflow-wrap: anywhere; }
.msg { margin: 3px 0 0 calc(33ch + 36px); font-size: 13px; overflow-wrap: anywhere; } .role { display: inline-block; width: 72px; color: var(--muted); }
.msg.assistant .role { color: #7e22ce; } .msg.tool .role { color: #1d4ed8; }
.msg.error { background: var(--error-bg); color: var(--error); font-weight: 600; border-radius: 6px; padding: 2px 6px; }
.call { margin-left: 8px; } .tool-name { color: #0e7490; font-weight: 600; } .call-id { color: var(--muted); }
.moves { margin: 3px 0 0 calc(33ch + 36px); font-size: 12.5px; color: #475569; } .state-name { color: var(--end-ink); font-weight: 600; }
.guard { color: var(--muted); } .approved { color: #15803d; font-weight: 600; } .denied, .cancelled { color: var(--error); font-weight: 600; } .waiting { color: var(--pause); font-weight: 600; }
.memory { padding-left: 18px; margin: 4px 0; } .memory ul { margin: 2px 0; } .memory .scope { color: #666; }
.children { list-style: none; padding-left: 0; margin: 4px 0; } .children .children { padding-left: 18px; }
.child summary { cursor: pointer; } .child p { margin: 4px 0 4px 18px; }
.child [class^="status-"] { border-radius: 6px; padding: 0 6px; background: #fef9c3; color: #854d0e; }
.child .status-done { background: #dcfce7; color: #166534; }
footer { color: var(--muted); font-size: 12px; }
/* A phone: one column, the timeline's messages under their event. */
@media (max-width: 760px) {
  .run-columns { grid-template-columns: minmax(0, 1fr); }
  header { grid-template-columns: minmax(0, 1fr); } .outcome { white-space: normal; justify-self: start; }
  header, section, footer, details.chart-section, .player, .pager, #children-place { padding-left: 10px; padding-right: 10px; }
  .head { grid-template-columns: 7ch 6ch minmax(0, 1fr); } .head .detail { grid-column: 1 / -1; }
  .msg, .moves { margin-left: 0; }
  .conversation, .prompt, .timeline { max-height: none; }
}
`;
