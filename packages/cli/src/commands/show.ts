import { writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { onePositional, parseCommandLine } from "../args.js";
import { renderReport } from "../html/report.js";
import { type Io, writeLines } from "../io.js";
import { palette, useColor } from "../output/colors.js";
import { formatTimeline } from "../output/timeline-text.js";
import { openLog, readLog } from "../setup/stores.js";
import { traceRun } from "../trace/run-trace.js";

export const SHOW_HELP = `Usage: agentloop show <log> [--html <file>] [--no-color]

Shows a run as a timeline: every logged event with the states it moved the machine through
(replayed through the machine itself), the messages, tool results (ERROR observations
highlighted), token usage, approval decisions, and the outcome.

Arguments:
  <log>          a <runId>.jsonl file, or <file.db>#<runId> in a SQLite store

Options:
  --html <file>  also write a self-contained HTML report (works offline): the statechart with
                 the run's path marked, and the timeline
  --no-color     no ANSI colors (also NO_COLOR=1; colors are off when stdout is not a terminal)
  -h, --help     this help
`;

/** `agentloop show`: a run's timeline, on the terminal and optionally as an HTML page. */
export async function showCommand(args: string[], io: Io): Promise<number> {
  const { values, positionals } = parseCommandLine("show", () =>
    parseArgs({
      args,
      allowPositionals: true,
      options: {
        html: { type: "string" },
        "no-color": { type: "boolean", default: false },
        help: { type: "boolean", short: "h", default: false },
      },
    }),
  );
  if (values.help) {
    io.stdout.write(SHOW_HELP);
    return 0;
  }
  const log = await openLog(onePositional("show", "a log (<runId>.jsonl)", positionals));
  const trace = traceRun(await readLog(log), log.runId);
  const colors = palette(useColor(io.stdout, values["no-color"], io.env));
  writeLines(io.stdout, formatTimeline(trace, colors, log));
  if (values.html !== undefined) {
    writeFileSync(values.html, renderReport(trace, log));
    writeLines(io.stdout, ["", `${colors.bold("report")}   ${values.html}`]);
  }
  return 0;
}
