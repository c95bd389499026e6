import { createHash } from "node:crypto";
import { type Model, type RunOptions, runAgent, ToolRegistry } from "@agentloop/core";
import type { EvalCase, ScoreInput, Scorer } from "./types.js";

/** A judge's verdict as read from its answer: a score from 0 to 1 and why. */
export interface Verdict {
  readonly score: number;
  readonly reason: string;
}

/** Options of `judge`: its scorer name and threshold, and the judge run's own options (retries, fallback models, limits). */
export interface JudgeOptions {
  readonly name?: string;
  readonly threshold?: number;
  readonly run?: Omit<RunOptions, "store" | "runId" | "signal" | "system">;
}

const INSTRUCTIONS = `You grade an AI agent's answer to a task against a rubric.
Answer with one JSON object and nothing else: {"score": <a number from 0 to 1>, "reason": "<one sentence>"}.`;

/**
 * An LLM judge: asks `model` to grade the run's answer by `rubric`, as a run of its own, logged in
 * the evaluation's store beside the case's run (its id is the case's run id with `.judge`, and the
 * report names it), so that its verdict can be shown, replayed and audited. The score is the
 * verdict's. An answer that is not such a verdict, a judge run that does not end `done`, or a model
 * that fails (after the retries and fallbacks of `options.run`) makes the scorer throw: an error
 * score of the case, never a pass. The judge's run stops when the evaluation's signal aborts.
 */
export function judge(model: Model, rubric: string, options: JudgeOptions = {}): Scorer {
  const name = options.name ?? "judge";
  return {
    name,
    ...(options.threshold !== undefined ? { threshold: options.threshold } : {}),
    async score(input: ScoreInput) {
      const runId = input.runId === undefined ? undefined : `${input.runId}.${runIdPart(name)}`;
      if (runId !== undefined) input.onRun?.(runId);
      const result = await runAgent(promptOf(input.case, input.result.answer), model, new ToolRegistry(), {
        maxSteps: 1,
        ...options.run,
        system: `${INSTRUCTIONS}\n\nRubric:\n${rubric}`,
        ...(input.store !== undefined && runId !== undefined ? { store: input.store, runId } : {}),
        ...(input.signal !== undefined ? { signal: input.signal } : {}),
      });
      if (result.status !== "done") throw new Error(`the judge's run ended '${result.status}', with no verdict`);
      return readVerdict(result.answer).score;
    },
  };
}

/**
 * A judge's name as the end of its run id: a short name of letters, digits, `_` and `-` as it is;
 * any other with those characters kept, the rest `_`, and a hash of the whole name after a `.`
 * (which a kept name never holds), so that `judge a` and `judge_a` log two runs.
 */
function runIdPart(name: string): string {
  if (/^[A-Za-z0-9_-]{1,32}$/.test(name)) return name;
  const hash = createHash("sha256").update(name).digest("hex").slice(0, 8);
  return `${name.replace(/[^A-Za-z0-9_-]/g, "_").slice(0, 24)}.${hash}`;
}

/** The task, the expected answer if any, and the answer to grade, as the judge is shown them. */
function promptOf(c: EvalCase, answer: string | null): string {
  const lines = [`Task:\n${c.task}`];
  if (c.expected !== undefined)
    lines.push(`Expected:\n${typeof c.expected === "string" ? c.expected : JSON.stringify(c.expected)}`);
  lines.push(`Answer to grade:\n${answer ?? "(the agent gave no answer)"}`);
  return lines.join("\n\n");
}

/**
 * Reads a judge's answer (a JSON object, optionally in a ```json fence) as a verdict; throws a
 * `TypeError` saying what is wrong for anything else: no JSON, no numeric `score`, a score outside 0..1.
 * The same answer always reads as the same verdict, so a judge run replayed from its log scores the same.
 */
export function readVerdict(answer: string | null): Verdict {
  const text = (answer ?? "").trim().replace(/^```(?:json)?\s*([\s\S]*?)\s*```$/, "$1");
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new TypeError(`the judge answered no verdict (not JSON): ${JSON.stringify(text.slice(0, 80))}`);
  }
  if (typeof value !== "object" || value === null || !("score" in value) || typeof value.score !== "number") {
    throw new TypeError(`the judge's verdict has no numeric "score": ${JSON.stringify(text.slice(0, 80))}`);
  }
  if (!(value.score >= 0 && value.score <= 1))
    throw new TypeError(`the judge's score ${value.score} is not from 0 to 1`);
  const reason = "reason" in value && typeof value.reason === "string" ? value.reason : "";
  return { score: value.score, reason };
}
