import { JSON_VIEW_OPTIONS, onePositional, parseCommand } from "../args.js";
import { stateName } from "../chart/statechart.js";
import { type Io, writeLines, wroteHelp } from "../io.js";
import { palette, useColor } from "../output/colors.js";
import { formatOutcome, unfinishedNote } from "../output/outcome.js";
import { openLog, readLog } from "../setup/stores.js";
import { traceRun } from "../trace/run-trace.js";

export const REPLAY_HELP = `Usage: agentloop replay <log> [--json] [--no-color]

Rebuilds a run from its event log by folding the events through the machine: it calls no
model and runs no tool. Prints the replayed result (the same AgentResult the live run
returned), or where an unfinished run stands. The log is only read.

Arguments:
  <log>       a <runId>.jsonl file, or <file.db>#<runId> in a SQLite store

Options:
  --json      print the result as JSON (an unfinished run: { "finished": false, "state", ... })
  --no-color  no ANSI colors (also NO_COLOR=1)
  -h, --help  this help

Exit codes: 0 the log was replayed (whatever the run's status), 2 a usage error.
`;

/** `agentloop replay`: the replayed result of a log. */
export async function replayCommand(args: string[], io: Io): Promise<number> {
  const { values, positionals } = parseCommand("replay", args, {
    ...JSON_VIEW_OPTIONS,
  });
  if (wroteHelp(io, values.help, REPLAY_HELP)) return 0;
  const log = await openLog(onePositional("replay", "a log (<runId>.jsonl)", positionals));
  const trace = traceRun(await readLog(log), log.runId, { keep: false });
  const { result } = trace;
  if (values.json) {
    const unfinished = {
      finished: false,
      state: stateName(trace.chart, trace.state),
      steps: trace.steps,
      tokens: trace.tokens,
      pendingApprovals: trace.waiting.map(({ id, name }) => ({ id, name })),
    };
    writeLines(io.stdout, [JSON.stringify(result === null ? unfinished : { ...result, runId: log.runId }, null, 2)]);
    return 0;
  }
  const colors = palette(useColor(io.stdout, values["no-color"], io.env));
  writeLines(
    io.stdout,
    result === null ? unfinishedNote(trace, colors, io, { log: log.label }) : formatOutcome(result, colors),
  );
  return 0;
}
