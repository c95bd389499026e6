import { parseFlags } from "../args.js";
import { toDot } from "../chart/format-dot.js";
import { toJson } from "../chart/format-json.js";
import { toMermaid } from "../chart/format-mermaid.js";
import { NO_PATH, type RunPath } from "../chart/run-path.js";
import { type Chart, chartOf } from "../chart/statechart.js";
import { UsageError } from "../cli-error.js";
import { machine } from "../core-api.js";
import { type Io, wroteHelp } from "../io.js";
import { checkOutputPath, writeOutput } from "../setup/output-file.js";
import { openLog, readLog } from "../setup/stores.js";
import { traceRun } from "../trace/run-trace.js";

export const GRAPH_HELP = `Usage: agentloop graph [--format mermaid|dot|json] [--run <log>] [--output <file>]

Prints the agent's statechart, generated from agentMachine's own definition: every state
(nested ones too), every transition with its event, guard and actions, the final states.

Options:
  --format <name>  mermaid (default; paste into any Mermaid renderer), dot (Graphviz), or json
  --run <log>      mark the path a run took: the states it entered and the transitions it took,
                   from replaying its log (a <runId>.jsonl file, or <file.db>#<runId>)
  --output <file>  write to a file instead of stdout
  -h, --help       this help
`;

const FORMATS: Readonly<Record<string, (chart: Chart, path: RunPath) => string>> = {
  mermaid: toMermaid,
  dot: toDot,
  json: toJson,
};

/** `agentloop graph`: the statechart of `agentMachine`, optionally with a run's path. */
export async function graphCommand(args: string[], io: Io): Promise<number> {
  const { values } = parseFlags("graph", args, {
    format: { type: "string", default: "mermaid" },
    run: { type: "string" },
    output: { type: "string" },
    help: { type: "boolean", short: "h", default: false },
  });
  if (wroteHelp(io, values.help, GRAPH_HELP)) return 0;
  const format = FORMATS[values.format];
  if (format === undefined) {
    throw new UsageError(`--format must be mermaid, dot or json; got '${values.format}'`);
  }
  if (values.output !== undefined) checkOutputPath(values.output, "the chart");
  const path = values.run === undefined ? NO_PATH : await pathOf(values.run);
  const text = format(chartOf(machine), path);
  if (values.output === undefined) io.stdout.write(text);
  else writeOutput(values.output, text, "the chart");
  return 0;
}

async function pathOf(reference: string): Promise<RunPath> {
  const log = await openLog(reference);
  const trace = traceRun(await readLog(log), log.runId, { keep: false });
  return { visits: trace.visits, taken: trace.taken, end: trace.state };
}
