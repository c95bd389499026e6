import type { Model } from "../../data/index.js";

/** The options `resumeAgent` takes; every other one is the log's (`run.started`) or unknown. */
const TAKEN = new Set([
  "store",
  "decisions",
  "answers",
  "prepareStep",
  "approve",
  "toolTimeoutMs",
  "maxResultChars",
  "signal",
  "inspect",
  "onEvent",
  "onLogged",
  "fallbackModels",
  "output",
  "guardrails",
  "summarizer",
  "compaction",
  "ceiling",
  "memory",
]);

/**
 * Refuses, in one line naming each, the options a resume cannot take: the limits and policies its
 * log started with (`runId`, `maxSteps`, `compaction.triggerTokens`, ...) and any name it does not
 * know, so that an option is never silently ignored. `compaction` is taken for its `summarizer`
 * only. Given `undefined`, an option counts as not given.
 */
export function checkResumeOptions(options: object, entry = "resumeAgent"): void {
  const refused = Object.entries(options).flatMap(([name, value]) =>
    value === undefined || TAKEN.has(name) ? [] : [name],
  );
  const { summarizer: top } = options as { summarizer?: unknown };
  if (top !== undefined && typeof top !== "function") {
    throw new TypeError(`summarizer must be a model (a function); got ${typeof top}`);
  }
  const compaction = (options as { compaction?: unknown }).compaction;
  if (compaction !== undefined) {
    if (typeof compaction !== "object" || compaction === null) {
      throw new TypeError(`compaction must be an object { summarizer? }; got ${String(compaction)}`);
    }
    for (const [name, value] of Object.entries(compaction)) {
      if (name !== "summarizer" && value !== undefined) refused.push(`compaction.${name}`);
    }
    const { summarizer } = compaction as { summarizer?: Model };
    if (summarizer !== undefined && typeof summarizer !== "function") {
      throw new TypeError(`compaction.summarizer must be a model (a function); got ${typeof summarizer}`);
    }
  }
  if (refused.length === 0) return;
  throw new TypeError(
    `${entry} cannot take ${refused.join(", ")}: a resumed run keeps the settings its log started with (give only the store, decisions, answers, approve, prepareStep, the safeguards, the models, output, guardrails, the spending ceiling and the listeners)`,
  );
}

/** The options of a run that a resume of it takes (`compaction` for its `summarizer` only); the rest are in its log. */
export function resumableOptions<T extends object>(options: T): Partial<T> {
  const taken = Object.entries(options).filter(([name, value]) => TAKEN.has(name) && value !== undefined);
  const picked = Object.fromEntries(taken) as Partial<T> & { compaction?: { summarizer?: Model } };
  const summarizer = picked.compaction?.summarizer;
  delete picked.compaction;
  return summarizer === undefined ? picked : { ...picked, compaction: { summarizer } };
}
