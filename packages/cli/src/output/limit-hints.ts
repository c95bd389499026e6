import type { AgentResult } from "../core-api.js";
import type { Io } from "../io.js";
import type { Palette } from "./colors.js";
import { commandLine } from "./hints.js";
import { type ResumeWith, resumeCommand } from "./outcome.js";

/** The limits a run had: model calls and tokens per turn. */
export interface Limits {
  readonly maxSteps: number;
  readonly tokenBudget: number;
}

/** What the user's next message says when a turn is taken further only to finish the work. */
const GO_ON = "Go on.";

/**
 * For a run stopped by a limit (`step_limit`, `token_budget`): which limit, and two commands that
 * go on from where it stopped: a fork of the whole log with the limit doubled, resumed at once;
 * or the next turn of the conversation (`chat`), whose limits count afresh. Nothing otherwise.
 */
export function limitLines(
  io: Io,
  colors: Palette,
  how: ResumeWith & { readonly runId: string },
  result: Pick<AgentResult, "status">,
  limits: Limits,
): string[] {
  const steps = result.status === "step_limit";
  if (!steps && result.status !== "token_budget") return [];
  const flag = steps ? "--max-steps" : "--token-budget";
  const limit = steps ? limits.maxSteps : limits.tokenBudget;
  const why = steps ? `its ${limit} model calls` : `its budget of ${limit} tokens`;
  const forkId = `${how.runId}-more`;
  const forked = forkLog(how.log, how.runId, forkId);
  const fork = commandLine(io, ["fork", how.log, flag, String(limit * 2), "--run-id", forkId]);
  const chat = commandLine(io, ["chat", how.log, ...toolsOf(how), ...(how.model ?? []), GO_ON]);
  return [
    `${colors.bold("stopped")}  the run used ${why} (${flag} ${limit}); to go on from where it stopped:`,
    `${colors.dim("raise")}    ${fork} && ${resumeCommand(io, { ...how, log: forked }, null, [])}`,
    `${colors.dim("chat")}     ${chat}   ${colors.dim("(a new turn, its limits counted afresh)")}`,
  ];
}

function toolsOf(how: ResumeWith): readonly string[] {
  return how.tools === undefined || how.tools.length === 0 ? ["--tools", "<module>"] : how.tools;
}

/** The log of run `forkId` in the store of `log` (`<dir>/<runId>.jsonl` or `<file.db>#<runId>`). */
function forkLog(log: string, runId: string, forkId: string): string {
  if (log.endsWith(`#${runId}`)) return `${log.slice(0, -runId.length)}${forkId}`;
  if (log.endsWith(`${runId}.jsonl`)) return `${log.slice(0, -`${runId}.jsonl`.length)}${forkId}.jsonl`;
  return log;
}
