import { JSON_VIEW_OPTIONS, onePositional, parseCommand, wholeNumber } from "../args.js";
import { UsageError } from "../cli-error.js";
import { forkRun } from "../core-api.js";
import { type Io, writeLines, wroteHelp } from "../io.js";
import { palette, useColor } from "../output/colors.js";
import { resumeCommand } from "../output/outcome.js";
import { logPathOf, newRunId } from "../setup/run-ids.js";
import { checkRunId, openLog, readLog, storeError } from "../setup/stores.js";

export const FORK_HELP = `Usage: agentloop fork <log> [--keep N] [--run-id <id>] [--max-steps N] [--token-budget N] [--json]

Starts a new run in the same store from a prefix of a run's log, with other limits if asked
(say, a larger budget); the original log is left as it is. Resume the new run to go on.

Arguments:
  <log>             a <runId>.jsonl file, or <file.db>#<runId> in a SQLite store

Options:
  --keep N          events of the original to keep, counting run.started (default: all but run.finished)
  --run-id <id>     the new run's id (default fork-<date>-<time>-<random>)
  --max-steps N     the new run's step limit (default: the original's)
  --token-budget N  the new run's token budget (default: the original's)
  --json            print { "runId", "log", "forkedFrom" } as JSON
  -h, --help        this help

Exit codes: 0 forked, 2 a usage error.
`;

/** `agentloop fork`: a new run from a prefix of another's log. */
export async function forkCommand(args: string[], io: Io): Promise<number> {
  const { values, positionals } = parseCommand("fork", args, {
    keep: { type: "string" },
    "run-id": { type: "string" },
    "max-steps": { type: "string" },
    "token-budget": { type: "string" },
    ...JSON_VIEW_OPTIONS,
  });
  if (wroteHelp(io, values.help, FORK_HELP)) return 0;
  const reference = onePositional("fork", "a log (<runId>.jsonl)", positionals);
  const keep = wholeNumber("--keep", values.keep, 1);
  const maxSteps = wholeNumber("--max-steps", values["max-steps"]);
  const tokenBudget = wholeNumber("--token-budget", values["token-budget"]);
  const forkId = values["run-id"] === undefined ? newRunId("fork") : checkRunId(values["run-id"]);
  const log = await openLog(reference, { readonly: false });
  const events = await readLog(log);
  if (keep !== undefined && keep > events.length) {
    throw new UsageError(`--keep ${keep} is more than the ${events.length} events of '${log.label}'`);
  }
  if ((await log.store.read(forkId)).length > 0) throw new UsageError(`run '${forkId}' already exists in this store`);
  const options = {
    runId: forkId,
    ...(keep === undefined ? {} : { keep }),
    ...(maxSteps === undefined ? {} : { maxSteps }),
    ...(tokenBudget === undefined ? {} : { tokenBudget }),
  };
  await forkRun(log.store, log.runId, options).catch((error: unknown) => {
    throw storeError(error, log.storePath);
  });
  const forked = logPathOf(log.storePath, forkId);
  if (values.json) {
    writeLines(io.stdout, [JSON.stringify({ runId: forkId, log: forked, forkedFrom: log.runId }, null, 2)]);
    return 0;
  }
  const colors = palette(useColor(io.stdout, values["no-color"], io.env));
  writeLines(io.stdout, [
    `${colors.bold("forked")}   ${log.label} → ${forked}`,
    `${colors.dim("resume")}   ${resumeCommand(io, { log: forked }, null, [])}`,
  ]);
  return 0;
}
