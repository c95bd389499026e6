/** The report's stylesheet, inlined in the page. */
export const REPORT_CSS = `
:root { --ink: #0f172a; --muted: #64748b; --line: #cbd5e1; --visited: #dbeafe; --visited-ink: #1d4ed8;
  --end: #fde68a; --end-ink: #b45309; --taken: #c2410c; --error: #b91c1c; --error-bg: #fef2f2; --focus: #7c3aed; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--ink); background: #f8fafc; }
header, section, footer { max-width: 1180px; margin: 0 auto; padding: 12px 20px; }
header { display: grid; grid-template-columns: 1fr auto; gap: 4px 16px; align-items: baseline; }
h1 { font-size: 20px; margin: 0; } h2 { font-size: 15px; margin: 0 0 8px; color: #334155; }
code { font: 12.5px ui-monospace, SFMono-Regular, Menlo, monospace; }
.task { grid-column: 1 / -1; margin: 0; font-size: 15px; }
.answer { grid-column: 1 / -1; margin: 0; color: #334155; }
.outcome { font-weight: 600; padding: 3px 12px; border-radius: 999px; background: #e2e8f0; }
.outcome.status-done { background: #dcfce7; color: #166534; }
.outcome.status-unfinished, .outcome.status-awaiting_approval { background: #fef9c3; color: #854d0e; }
.outcome.status-step_limit, .outcome.status-token_budget, .outcome.status-repeated_call, .outcome.status-cancelled { background: #ffedd5; color: #9a3412; }
.card { background: white; border: 1px solid #e2e8f0; border-radius: 12px; padding: 12px 14px; }
svg.chart { display: block; max-width: 100%; height: auto; margin: 0 auto; font-family: system-ui, sans-serif; }
svg .state rect { fill: white; stroke: #64748b; stroke-width: 1.4; }
svg .state text.name { font-size: 13px; text-anchor: middle; fill: var(--ink); font-weight: 500; }
svg .state .divider { stroke: #cbd5e1; }
svg .edge.internal text { text-anchor: start; font-size: 11px; fill: #475569; stroke: none; }
svg .edge.internal.taken text { fill: var(--taken); }
svg .edge.internal.header text { text-anchor: end; }
svg .state.final rect.inner { fill: none; }
svg .state.compound > rect { fill: #f8fafc; stroke: #94a3b8; stroke-dasharray: 0; }
svg .state.compound .frame-label { text-anchor: start; font-weight: 600; fill: #475569; }
svg .state.any rect { fill: #f1f5f9; stroke-dasharray: 5 4; }
svg .state.visited > rect { fill: var(--visited); stroke: var(--visited-ink); stroke-width: 2; }
svg .state.compound.visited > rect { fill: #eff6ff; }
svg .state.end > rect { fill: var(--end); stroke: var(--end-ink); stroke-width: 3; }
svg .badge rect { fill: var(--visited-ink); stroke: none; } svg .badge text { fill: white; font-size: 10.5px; font-weight: 600; text-anchor: middle; }
svg .edge path { fill: none; stroke: #64748b; stroke-width: 1.3; }
svg .edge.eventless path { stroke-dasharray: 5 3; }
svg .edge text { font-size: 11px; text-anchor: middle; fill: #334155; paint-order: stroke; stroke: #f8fafc; stroke-width: 4px; stroke-linejoin: round; }
svg .edge.taken path { stroke: var(--taken); stroke-width: 2.6; }
svg .edge.taken text { fill: var(--taken); font-weight: 600; }
svg .initial circle { fill: var(--ink); } svg .initial path { stroke: var(--ink); stroke-width: 1.3; }
svg .state.focus > rect { stroke: var(--focus) !important; stroke-width: 4 !important; }
svg .edge.focus path { stroke: var(--focus); stroke-width: 3.5; }
svg .edge.internal.focus text { fill: var(--focus); font-weight: 700; }
.legend { display: flex; gap: 18px; flex-wrap: wrap; color: var(--muted); font-size: 12.5px; margin-bottom: 6px; }
.legend i { display: inline-block; width: 14px; height: 10px; border-radius: 3px; margin-right: 5px; vertical-align: middle; }
.player { display: flex; gap: 10px; align-items: center; margin-top: 8px; color: var(--muted); font-size: 12.5px; }
.player input { flex: 1; }
.path { margin: 6px 0 0; font-size: 12.5px; color: #334155; }
.path .hop { display: inline-block; padding: 0 6px; margin: 2px 0; border-radius: 6px; background: var(--visited); }
.timeline { list-style: none; margin: 0; padding: 0; }
.entry { background: white; border: 1px solid #e2e8f0; border-left: 4px solid var(--line); border-radius: 8px; padding: 6px 10px; margin: 6px 0; cursor: pointer; }
.entry.current { border-left-color: var(--focus); box-shadow: 0 0 0 2px #ede9fe; }
.entry.has-error { border-left-color: var(--error); }
.entry.type-run-finished { border-left-color: #16a34a; }
.head { display: flex; gap: 10px; align-items: baseline; }
.time { color: var(--muted); width: 64px; font-variant-numeric: tabular-nums; } .seq { color: var(--muted); width: 34px; }
.type { font-weight: 600; width: 142px; } .detail { color: #334155; }
.msg { margin: 3px 0 0 250px; font-size: 13px; } .role { display: inline-block; width: 72px; color: var(--muted); }
.msg.assistant .role { color: #7e22ce; } .msg.tool .role { color: #1d4ed8; }
.msg.error { background: var(--error-bg); color: var(--error); font-weight: 600; border-radius: 6px; padding: 2px 6px; }
.call { margin-left: 8px; } .tool-name { color: #0e7490; font-weight: 600; } .call-id { color: var(--muted); }
.moves { margin: 3px 0 0 250px; font-size: 12.5px; color: #475569; } .state-name { color: var(--end-ink); font-weight: 600; }
.guard { color: var(--muted); } .approved { color: #15803d; font-weight: 600; } .denied, .cancelled { color: var(--error); font-weight: 600; }
footer { color: var(--muted); font-size: 12px; }
`;
