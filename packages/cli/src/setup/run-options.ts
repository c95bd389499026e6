import { wholeNumber } from "../args.js";
import { UsageError } from "../cli-error.js";
import type { Decision, RunOptions, ToolCall, ToolRegistry } from "../core-api.js";

/** The `run` flags that become `runAgent` options, as `parseArgs` declares them. */
export const RUN_OPTION_FLAGS = {
  system: { type: "string" },
  "max-steps": { type: "string" },
  "token-budget": { type: "string" },
  "reply-reserve": { type: "string" },
  "tool-timeout": { type: "string" },
  "max-result-chars": { type: "string" },
  "tool-concurrency": { type: "string" },
  "repeat-limit": { type: "string" },
  "on-repeated-call": { type: "string" },
  retry: { type: "string" },
  "approve-tool": { type: "string", multiple: true, default: [] as string[] },
  "deny-tool": { type: "string", multiple: true, default: [] as string[] },
  reason: { type: "string" },
} as const;

/**
 * The limits `agentloop run` gives a run unless told otherwise: room for real models and MCP
 * servers (a server's tool list alone can cost 2,000 tokens a prompt), where `runAgent`'s own
 * defaults (8 steps, 4,000 tokens) stop such a run after one step.
 */
export const CLI_RUN_DEFAULTS = { maxSteps: 50, tokenBudget: 200_000 } as const;

/** Help lines for `RUN_OPTION_FLAGS`. */
export const RUN_OPTION_HELP = `  --system <text>          the system prompt (default: core's)
  --max-steps N            model calls allowed (default ${CLI_RUN_DEFAULTS.maxSteps}; runAgent's own: 8)
  --token-budget N         tokens allowed, prompts and replies together (default ${CLI_RUN_DEFAULTS.tokenBudget};
                           runAgent's own: 4000); a run stopped by either limit prints how to go on
  --reply-reserve N        tokens kept free for the reply in the check before each call
  --tool-timeout <ms>      how long a tool may take, in milliseconds (default 60000)
  --max-result-chars N     longer tool results are cut (default 8000)
  --tool-concurrency <n>   how many calls of one reply run at once: a whole number, 1 or more (1 runs
                           them one at a time, in call order), or 'all' (the default)
  --repeat-limit N         turns the repeated-call guard on (it is off by default: paging and polling
                           tools are called again on purpose): the same call N times in a row is not
                           run (2 or more); tools registered as repeatable are never refused
  --on-repeated-call <how> what the guard does: refuse the call with an ERROR the model reads (default),
                           or stop the run with repeated_call; giving it turns the guard on (limit 3)
  --retry N                try a model call that failed with a retryable error (rate limit, overload, 5xx,
                           network, timeout) again up to N times, after a backoff (the provider's
                           retry-after wins); each failed attempt is logged and shown as it happens
  --approve-tool <name>    approve every call to this tool that needs approval (repeatable)
  --deny-tool <name>       deny every call to this tool instead (repeatable)
  --reason <text>          the reason given to the model for the denials`;

type Values = {
  readonly system?: string | undefined;
  readonly "max-steps"?: string | undefined;
  readonly "token-budget"?: string | undefined;
  readonly "reply-reserve"?: string | undefined;
  readonly "tool-timeout"?: string | undefined;
  readonly "max-result-chars"?: string | undefined;
  readonly "tool-concurrency"?: string | undefined;
  readonly "repeat-limit"?: string | undefined;
  readonly "on-repeated-call"?: string | undefined;
  readonly retry?: string | undefined;
  readonly "approve-tool"?: readonly string[] | undefined;
  readonly "deny-tool"?: readonly string[] | undefined;
  readonly reason?: string | undefined;
};

/** The options of `RUN_OPTION_FLAGS` but the approvals: what every run or served turn is started with. */
export type AgentRunOptions = Partial<
  Pick<
    RunOptions,
    | "system"
    | "maxSteps"
    | "tokenBudget"
    | "replyReserve"
    | "toolTimeoutMs"
    | "maxResultChars"
    | "toolConcurrency"
    | "repeatLimit"
    | "onRepeatedCall"
    | "retry"
  >
>;

/** The `runAgent` options the flags ask for (only those given); a bad value is a `UsageError` naming its flag. */
export function runOptionsOf(values: Values, registry: ToolRegistry): Partial<RunOptions> {
  const options = agentRunOptionsOf(values);
  const approve = approverOf(values["approve-tool"] ?? [], values["deny-tool"] ?? [], values.reason, registry);
  return { ...options, ...(approve === undefined ? {} : { approve }) };
}

/** The options the flags ask for but `--approve-tool`, `--deny-tool` and `--reason`, which name tools (see `checkToolPolicy`). */
export function agentRunOptionsOf(values: Values): AgentRunOptions {
  const options: Record<string, unknown> = {};
  const set = (key: string, value: unknown) => {
    if (value !== undefined) options[key] = value;
  };
  set("system", values.system);
  set("maxSteps", wholeNumber("--max-steps", values["max-steps"]));
  set("tokenBudget", wholeNumber("--token-budget", values["token-budget"]));
  set("replyReserve", wholeNumber("--reply-reserve", values["reply-reserve"]));
  set("toolTimeoutMs", wholeNumber("--tool-timeout", values["tool-timeout"], 1));
  set("maxResultChars", wholeNumber("--max-result-chars", values["max-result-chars"], 1));
  set("toolConcurrency", toolConcurrencyOf(values["tool-concurrency"]));
  set("repeatLimit", wholeNumber("--repeat-limit", values["repeat-limit"], 2));
  set("onRepeatedCall", onRepeatedCallOf(values["on-repeated-call"]));
  const attempts = wholeNumber("--retry", values.retry);
  set("retry", attempts === undefined ? undefined : { attempts });
  return options as AgentRunOptions;
}

function toolConcurrencyOf(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  if (text === "all") return Number.POSITIVE_INFINITY;
  const value = Number(text);
  if (!/^\d+$/.test(text.trim()) || !Number.isSafeInteger(value) || value < 1) {
    throw new UsageError(`--tool-concurrency must be a whole number, 1 or more, or 'all'; got '${text}'`);
  }
  return value;
}

function onRepeatedCallOf(text: string | undefined): "refuse" | "stop" | undefined {
  if (text === undefined || text === "refuse" || text === "stop") return text;
  throw new UsageError(`--on-repeated-call must be refuse or stop; got '${text}'`);
}

/** An approver from `--approve-tool`/`--deny-tool`: other calls that need approval pause the run. */
function approverOf(
  approved: readonly string[],
  denied: readonly string[],
  reason: string | undefined,
  registry: ToolRegistry,
): ((call: ToolCall) => Decision | undefined) | undefined {
  checkToolPolicy(approved, denied, registry.approvalRequired());
  if (approved.length === 0 && denied.length === 0) return undefined;
  const denial: Decision = reason === undefined ? { approved: false } : { approved: false, reason };
  return (call) =>
    approved.includes(call.name) ? { approved: true } : denied.includes(call.name) ? denial : undefined;
}

/** Refuses `--approve-tool`/`--deny-tool` names of tools that need no approval (`needing` are those that do), and a tool named by both. */
export function checkToolPolicy(
  approved: readonly string[],
  denied: readonly string[],
  needing: readonly string[],
): void {
  for (const name of [...approved, ...denied]) {
    if (!needing.includes(name)) {
      const list = needing.length === 0 ? "no tool does" : `those that do: ${needing.join(", ")}`;
      throw new UsageError(`tool '${name}' does not need approval (${list})`);
    }
  }
  const both = approved.find((name) => denied.includes(name));
  if (both !== undefined) throw new UsageError(`tool '${both}' is both approved and denied: choose one`);
}
