import { JSON_VIEW_OPTIONS, parseFlags } from "../args.js";
import { type Io, writeLines, wroteHelp } from "../io.js";
import { palette, useColor } from "../output/colors.js";
import { formatUsd } from "../output/outcome.js";
import { listRuns } from "../setup/list-runs.js";
import { logPathOf } from "../setup/run-ids.js";
import { openStore, storeShown } from "../setup/stores.js";
import { DEFAULT_STORE } from "./run.js";

export const LIST_HELP = `Usage: agentloop list [--store <path>] [--json] [--no-color]

Lists the runs a store keeps, oldest first: the run id, when it started, how many events its
log holds, its status, and its task. The status is the one show, the HTML report and the studio
give: how the run ended (done, step_limit, token_budget, refused, repeated_call, cancelled,
invalid_output, guardrail_tripped), awaiting_approval while a call waits for a decision,
model_failed when the run gave up on its model, unfinished when its log ends before the run did
(interrupted, or still going), and refused for a log that cannot be read as a run (not JSON, a
broken hash, an event that does not fit), with the reason on the line below. A child run (an
agent tool's) comes right after its parent, indented and marked ↳. The store is only read; every
log is read whole and its hashes checked. A file named *.jsonl that is not a regular file (a
FIFO, a device) is left out, with one line on stderr saying why.

Options:
  --store <path>  a directory of <runId>.jsonl files, a .db/.sqlite file, or a
                  postgres://… database (default ${DEFAULT_STORE})
  --json          print the runs as a JSON array of { runId, task, startedAt, events, outcome,
                  status, log } (and parent: { runId, callId } for a child run, refused: the
                  reason for a refused log)
  --no-color      no ANSI colors (also NO_COLOR=1)
  -h, --help      this help

Exit codes: 0 listed (also when the store holds no run), 2 a usage error.
`;

/** `agentloop list`: the runs of a store. */
export async function listCommand(args: string[], io: Io): Promise<number> {
  const { values } = parseFlags("list", args, {
    store: { type: "string", default: DEFAULT_STORE },
    ...JSON_VIEW_OPTIONS,
  });
  if (wroteHelp(io, values.help, LIST_HELP)) return 0;
  const store = await openStore(values.store, { readonly: true });
  const skip = ({ path, reason }: { path: string; reason: string }) =>
    writeLines(io.stderr, [`agentloop: left out ${path}: ${reason}`]);
  const sorted = await listRuns(store, values.store, skip);
  if (values.json) {
    const rows = sorted.map(({ depth: _depth, ...run }) => ({ ...run, log: logPathOf(values.store, run.runId) }));
    writeLines(io.stdout, [JSON.stringify(rows, null, 2)]);
    return 0;
  }
  const colors = palette(useColor(io.stdout, values["no-color"], io.env));
  if (sorted.length === 0) {
    writeLines(io.stdout, [`no runs in ${storeShown(values.store)}`]);
    return 0;
  }
  const names = sorted.map((run) => (run.depth === 0 ? run.runId : `${"  ".repeat(run.depth)}↳ ${run.runId}`));
  const width = Math.max(6, ...names.map((name) => name.length));
  // The cost column shows only in a store that holds priced runs.
  const priced = sorted.some((run) => run.outcome?.cost !== undefined);
  const rows = sorted.flatMap((run, index) => {
    const word = run.status.padEnd(17);
    const status = run.status === "done" ? word : colors.yellow(word);
    const task = run.task.length > 60 ? `${run.task.slice(0, 59)}…` : run.task;
    const started = (run.startedAt === "" ? "-" : run.startedAt.slice(0, 19).replace("T", " ")).padEnd(19);
    const cost = priced ? `${(run.outcome?.cost === undefined ? "-" : formatUsd(run.outcome.cost)).padStart(9)}  ` : "";
    const line = `${(names[index] ?? run.runId).padEnd(width)}  ${started}  ${String(run.events).padStart(6)}  ${status}  ${cost}${task}`;
    return run.refused === undefined ? [line] : [line, colors.dim(`${" ".repeat(width + 2)}refused: ${run.refused}`)];
  });
  const head = `${"run".padEnd(width)}  ${"started (UTC)".padEnd(19)}  ${"events"}  ${"status".padEnd(17)}  ${priced ? `${"cost".padStart(9)}  ` : ""}task`;
  writeLines(io.stdout, [colors.bold(head), ...rows]);
  return 0;
}
