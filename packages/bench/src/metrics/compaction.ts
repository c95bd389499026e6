import {
  type AgentResult,
  countTokens,
  type Message,
  type Model,
  type ModelReply,
  runAgent,
  ToolRegistry,
  type ToolSpec,
} from "@agentloop/core";
import { median } from "../measure.js";

/** The runs side by side: no compaction, `trim`, and `summarize` with a scripted summarizer. */
export const COMPACTION_MODES = ["off", "trim", "summarize"] as const;
export type CompactionMode = (typeof COMPACTION_MODES)[number];

/** The trigger of both strategies, in estimated prompt tokens; `keepRecent` stays at its default (4). */
export const TRIGGER_TOKENS = 8000;
/** Characters of each tool result: 2 KB. */
export const RESULT_CHARS = 2048;
const SUMMARY = `Pages read so far, in order; each said what the next one says. ${"Notes. ".repeat(40)}`;

/** What one run sent, counted with `countTokens` as the model and the summarizer were shown it. */
export interface TokenCount {
  readonly steps: number;
  /** Tokens of every prompt the run's model was shown (tool specs and messages), summed over its calls. */
  readonly modelPrompts: number;
  /** Tokens of every prompt the summarizer was shown, summed (0 without `summarize`). */
  readonly summarizerPrompts: number;
  /** The prompt of the run's last model call. */
  readonly lastPrompt: number;
  readonly compactions: number;
  /** The run's own `tokens`: every prompt and reply as it counted them, the summaries' calls included. */
  readonly runTokens: number;
}

/** One measured run: its milliseconds, and its result for the check. */
type TimedRun = () => Promise<{ readonly ms: number; readonly result: AgentResult }>;

function pageTools(): ToolRegistry {
  const registry = new ToolRegistry();
  const parameters = { type: "object", properties: { page: { type: "integer" } }, required: ["page"] } as const;
  registry.register("read_page", "Reads one page of the report.", parameters, (args) => {
    const head = `page ${String(args.page)}: `;
    return head + "x".repeat(RESULT_CHARS - head.length);
  });
  return registry;
}

/** A model that reads pages 1 to `steps - 1`, one per call, then answers; `shown` hears each list it is shown. */
function pageReader(steps: number, shown?: (messages: readonly Message[], tools: readonly ToolSpec[]) => void): Model {
  let calls = 0;
  return (messages, tools): ModelReply => {
    calls += 1;
    shown?.(messages, tools);
    if (calls >= steps) return { content: "All pages read.", toolCalls: [] };
    return { content: "", toolCalls: [{ id: `c${calls}`, name: "read_page", args: { page: calls } }] };
  };
}

function summarizer(shown?: (messages: readonly Message[]) => void): Model {
  return (messages) => {
    shown?.(messages);
    return { content: SUMMARY, toolCalls: [] };
  };
}

function options(mode: CompactionMode, steps: number, summarize: Model) {
  const base = { maxSteps: steps, tokenBudget: Number.POSITIVE_INFINITY };
  if (mode === "off") return base;
  return { ...base, compaction: { triggerTokens: TRIGGER_TOKENS, strategy: mode, summarizer: summarize } };
}

function check(mode: CompactionMode, steps: number, result: AgentResult): void {
  if (result.status !== "done" || result.steps !== steps || result.messages.length !== 2 * steps + 1) {
    throw new Error(`compaction bench (${mode}): the ${steps}-step run ended ${result.status} after ${result.steps}`);
  }
}

/** Counts what a `steps`-step run of `mode` sends (an untimed run: counting every prompt costs more than the run). */
export async function countTokensSent(mode: CompactionMode, steps: number): Promise<TokenCount> {
  let modelPrompts = 0;
  let summarizerPrompts = 0;
  let lastPrompt = 0;
  let compactions = 0;
  const model = pageReader(steps, (messages, tools) => {
    lastPrompt = countTokens(tools) + countTokens(messages);
    modelPrompts += lastPrompt;
  });
  const summarize = summarizer((messages) => {
    summarizerPrompts += countTokens(messages);
  });
  const result = await runAgent("Read the report, page by page.", model, pageTools(), {
    ...options(mode, steps, summarize),
    onEvent: (event) => {
      if (event.type === "logged" && event.event.type === "context.compacted") compactions += 1;
    },
  });
  check(mode, steps, result);
  return { steps, modelPrompts, summarizerPrompts, lastPrompt, compactions, runTokens: result.tokens };
}

function timedRun(mode: CompactionMode, steps: number): TimedRun {
  const registry = pageTools();
  return async () => {
    const model = pageReader(steps);
    const start = performance.now();
    const result = await runAgent(
      "Read the report, page by page.",
      model,
      registry,
      options(mode, steps, summarizer()),
    );
    const ms = performance.now() - start;
    check(mode, steps, result);
    return { ms, result };
  };
}

/**
 * Microseconds per step of a `steps`-step run in each mode: `rounds` runs of each, the modes
 * interleaved (their order turned each round), after one unmeasured run of each; the median kept.
 */
export async function measureCompactionSteps(
  steps: number,
  rounds: number,
): Promise<ReadonlyMap<CompactionMode, number>> {
  const runs = COMPACTION_MODES.map((mode) => [mode, timedRun(mode, steps)] as const);
  const samples = new Map<CompactionMode, number[]>(COMPACTION_MODES.map((mode) => [mode, []]));
  for (const [, run] of runs) await run();
  for (let round = 0; round < rounds; round++) {
    for (const [mode, run] of round % 2 === 0 ? runs : [...runs].reverse()) {
      samples.get(mode)?.push(((await run()).ms * 1000) / steps);
    }
  }
  return new Map([...samples].map(([mode, values]) => [mode, median(values)]));
}
