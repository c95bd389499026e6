import type { AgentResult, AgentStatus } from "./core-api.js";

/**
 * What the exit code of `run`, `resume` and `demo` says: 0 the run is done; each other way a run
 * can end or stop has its own code; 1 a failure (the model or the store could not be used, or a
 * bug); 2 a usage error the user can fix. Scripts can rely on these numbers.
 */
export const EXIT_CODES = {
  done: 0,
  failure: 1,
  usage: 2,
  step_limit: 3,
  token_budget: 4,
  awaiting_approval: 5,
  repeated_call: 6,
  refused: 7,
  invalid_output: 8,
  guardrail_tripped: 10,
  awaiting_input: 11,
  cost_budget: 12,
  /** A status this table does not know yet (from a newer core). */
  other: 9,
  cancelled: 130,
} as const;

/** The exit code of a run that ended (or paused) with `result`. */
export function exitCodeOf(result: Pick<AgentResult, "status">): number {
  return Object.hasOwn(STATUS_CODES, result.status) ? STATUS_CODES[result.status] : EXIT_CODES.other;
}

// Keyed by every status core lists: a new status does not compile until it has its code.
const STATUS_CODES: Readonly<Record<AgentStatus, number>> = {
  done: EXIT_CODES.done,
  step_limit: EXIT_CODES.step_limit,
  token_budget: EXIT_CODES.token_budget,
  awaiting_approval: EXIT_CODES.awaiting_approval,
  repeated_call: EXIT_CODES.repeated_call,
  refused: EXIT_CODES.refused,
  cancelled: EXIT_CODES.cancelled,
  invalid_output: EXIT_CODES.invalid_output,
  guardrail_tripped: EXIT_CODES.guardrail_tripped,
  awaiting_input: EXIT_CODES.awaiting_input,
  cost_budget: EXIT_CODES.cost_budget,
};

/** The table for help texts and docs: `  0  done`, one line per code. */
export const EXIT_CODE_HELP = `Exit codes:
  0    done: the model gave its final answer
  1    the run failed: the model or the store could not be used (the log is kept and named)
  2    a usage error: an unknown command or flag, a missing file, a log that cannot be used
  3    step_limit: the run used its --max-steps model calls
  4    token_budget: the next call would not have fit in --token-budget
  5    awaiting_approval: a call waits for --approve/--deny (resume it)
  6    repeated_call: the run stopped on a repeated call
  7    refused: the run was refused
  8    invalid_output: the answers never matched the output schema
  10   guardrail_tripped: a guardrail stopped the run
  11   awaiting_input: a question waits for --answer (resume it)
  12   cost_budget: the next call would not have fit in --cost-budget
  9    another status, from a newer agentloop
  130  cancelled (Ctrl-C); the log stays valid
`;
