import { onePositional, parseCommand } from "../args.js";
import { type Io, writeLines, wroteHelp } from "../io.js";
import { openLog, storeError } from "../setup/stores.js";

export const REPAIR_HELP = `Usage: agentloop repair <log>

Drops a torn or corrupt last event from a run's log (what a crash in the middle of a write
leaves), keeping every event before it, so that the run can be shown and resumed again. A log
that reads as it is stays untouched; damage before the last event is reported, never dropped.

Arguments:
  <log>       a <runId>.jsonl file, or <file.db>#<runId> in a SQLite store

Options:
  -h, --help  this help

Exit codes: 0 repaired (or nothing to repair), 2 a usage error or damage repair cannot fix.
`;

/** `agentloop repair`: drops a torn last event. */
export async function repairCommand(args: string[], io: Io): Promise<number> {
  const { values, positionals } = parseCommand("repair", args, {
    help: { type: "boolean", short: "h", default: false },
  });
  if (wroteHelp(io, values.help, REPAIR_HELP)) return 0;
  const log = await openLog(onePositional("repair", "a log (<runId>.jsonl)", positionals), { readonly: false });
  const dropped = await log.store.repair(log.runId).catch((error: unknown) => {
    throw storeError(error, log.storePath);
  });
  writeLines(io.stdout, [
    dropped === 0
      ? `nothing to repair: ${log.label} reads as it is`
      : `repaired ${log.label}: dropped ${dropped} torn event${dropped === 1 ? "" : "s"} at its end`,
  ]);
  return 0;
}
