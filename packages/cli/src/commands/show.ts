import { onePositional, parseCommand, VIEW_OPTIONS } from "../args.js";
import { renderReport } from "../html/report.js";
import { type Io, writeLines, wroteHelp } from "../io.js";
import { palette, useColor } from "../output/colors.js";
import { formatTimeline } from "../output/timeline-text.js";
import { checkOutputPath, writeOutput } from "../setup/output-file.js";
import { openLog, readLog } from "../setup/stores.js";
import { childRunsOf } from "../trace/child-runs.js";
import { traceRun } from "../trace/run-trace.js";

export const SHOW_HELP = `Usage: agentloop show <log> [--html <file>] [--no-color]

Shows a run as a timeline: every logged event with the states it moved the machine through
(replayed through the machine itself), the messages, tool results (ERROR observations
highlighted), token usage, approval decisions, pauses and interruptions, and the outcome.
The log is only read: a SQLite file is opened read-only.

Arguments:
  <log>          a <runId>.jsonl file, <file.db>#<runId> in a SQLite store, or
                 postgres://…#<runId> in a Postgres store

Options:
  --html <file>  also write a self-contained HTML report (works offline): the statechart with
                 the run's path marked, a slider through the run, and the timeline
  --no-color     no ANSI colors (also NO_COLOR=1; colors are off when stdout is not a terminal)
  -h, --help     this help

Exit codes: 0 the log was shown, 2 a usage error (a missing file, a log that cannot be used).
`;

/** `agentloop show`: a run's timeline, on the terminal and optionally as an HTML page. */
export async function showCommand(args: string[], io: Io): Promise<number> {
  const { values, positionals } = parseCommand("show", args, {
    html: { type: "string" },
    ...VIEW_OPTIONS,
  });
  if (wroteHelp(io, values.help, SHOW_HELP)) return 0;
  const reference = onePositional("show", "a log (<runId>.jsonl)", positionals);
  if (values.html !== undefined) checkOutputPath(values.html, "the report");
  const log = await openLog(reference);
  const trace = traceRun(await readLog(log), log.runId);
  const tree = await childRunsOf(log, trace);
  if (values.html !== undefined) {
    writeOutput(values.html, await renderReport(trace, log, tree, io.program), "the report");
  }
  const colors = palette(useColor(io.stdout, values["no-color"], io.env));
  writeLines(io.stdout, formatTimeline(trace, colors, log, io, tree));
  if (values.html !== undefined) writeLines(io.stdout, ["", `${colors.bold("report")}   ${values.html}`]);
  return 0;
}
