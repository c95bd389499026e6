/** The studio's own styles, beside the report's (which the run page reuses). */
export const STUDIO_CSS = `
.studio-bar{display:flex;flex-wrap:wrap;gap:.6rem 1rem;align-items:center;padding:.6rem 1.2rem;background:#1f2937;color:#f9fafb;font:14px system-ui,sans-serif}
.studio-bar a{color:#93c5fd}
.studio-bar .live{margin-left:auto;font-size:12px;color:#a7f3d0}
.studio-bar button,.studio-bar input{font:inherit}
.studio-bar .failure{color:#fecaca}
.studio-bar .streaming{color:#e5e7eb;font-style:italic;max-width:40rem;overflow-wrap:anywhere}
.studio-list{font:14px system-ui,sans-serif;margin:1rem 1.2rem}
.studio-list table{border-collapse:collapse;width:100%}
.studio-list th,.studio-list td{text-align:left;padding:.3rem .5rem;border-bottom:1px solid #e5e7eb;vertical-align:top}
.studio-list td.num{text-align:right;font-variant-numeric:tabular-nums}
.studio-list .task{max-width:40rem;overflow-wrap:break-word}
.studio-list .reason{color:#b91c1c;font-size:12px;overflow-wrap:break-word}
.studio-list table:not(.priced) .cost{display:none}
.studio-list .tools{display:flex;flex-wrap:wrap;gap:.5rem;align-items:center;margin-bottom:.8rem}
.badge{display:inline-block;padding:0 .4rem;border-radius:.3rem;background:#e5e7eb;font-size:12px}
.badge.done{background:#dcfce7}.badge.unfinished{background:#dbeafe}.badge.awaiting_approval{background:#fef3c7}.badge.refused,.badge.model_failed{background:#fee2e2}
.compare{display:grid;grid-template-columns:1fr 1fr;gap:0 1rem;font:13px system-ui,sans-serif;margin:1rem 1.2rem}
.compare h2{font-size:15px;margin:.2rem 0 .6rem}
.compare ol{list-style:none;margin:0;padding:0}
.compare li{padding:.25rem .4rem;border-bottom:1px solid #e5e7eb;min-height:1.4rem;overflow-wrap:anywhere}
.compare li.same{color:#6b7280}
.compare li.diverges{background:#fee2e2;border-left:3px solid #b91c1c}
.compare li.after{background:#fff7ed}
.compare .summary{grid-column:1 / span 2;margin-bottom:.8rem;font-size:14px}
.studio-bar{position:relative;z-index:3}
.studio-bar .wait{display:inline-flex;flex-wrap:wrap;gap:.3rem;align-items:center}
.studio-bar button:focus-visible,.studio-bar a:focus-visible{outline:3px solid #fbbf24;outline-offset:2px}
.table-scroll{overflow-x:auto}
.studio-bar form.answer label{color:#e5e7eb;font-size:13px}
.studio-bar form.answer input{min-width:0;max-width:16rem}
.evals tr.regressed,.evals tr.fail{background:#fee2e2}.evals tr.improved{background:#dcfce7}
.evals td.fell{color:#b91c1c;font-weight:600}.evals td.rose{color:#15803d;font-weight:600}
.badge.regressed{background:#fee2e2}.badge.improved{background:#dcfce7}.badge.new{background:#dbeafe}
.evals .summary{font-size:15px}
@media (max-width:760px){.studio-bar{padding:.5rem .6rem;gap:.4rem .6rem}.studio-list{margin:.6rem}.compare{grid-template-columns:minmax(0,1fr)}.compare .summary{grid-column:auto}.studio-list .when,.studio-list .lineage{display:none}
.studio-list #runs-table thead{display:none}
.studio-list #runs tr{display:flex;flex-wrap:wrap;align-items:baseline;gap:.15rem .6rem;padding:.45rem 0;border-bottom:1px solid #e5e7eb}
.studio-list #runs td{display:block;border:0;padding:0}
.studio-list #runs td.id{overflow-wrap:anywhere;min-width:0}
.studio-list #runs td.task{flex:1 0 100%;max-width:none}
.studio-list #runs td.num{text-align:left;color:#4b5563;font-size:13px}
.studio-list #runs td.num::before{content:attr(data-label) " ";color:#6b7280}
.studio-list #runs td.when,.studio-list #runs td.lineage,.studio-list #runs td.cost.unknown,.studio-list #runs-table:not(.priced) td.cost{display:none}}
`;
