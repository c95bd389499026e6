import { messageOf } from "./message-of.js";
import type { CaseReport, ScoreInput, Scorer } from "./types.js";

/**
 * Scores one case with every scorer: a scorer that throws, or gives a score outside 0..1 (or not a
 * number), scores 0 and is named in the case's `error`; the other scorers still run.
 */
export async function scoreCase(
  input: ScoreInput & { runId: string },
  scorers: readonly Scorer[],
): Promise<CaseReport> {
  const { result } = input;
  const scores: Record<string, number> = {};
  const errors: string[] = [];
  const scorerRuns: Record<string, string> = {};
  let passed = true;
  for (const scorer of scorers) {
    let score: number;
    try {
      const onRun = (runId: string): void => {
        scorerRuns[scorer.name] = runId;
      };
      score = await scorer.score({ ...input, onRun });
      if (typeof score !== "number" || !(score >= 0 && score <= 1)) {
        throw new RangeError(`gave ${String(score)}, not a score from 0 to 1`);
      }
    } catch (error) {
      errors.push(`scorer '${scorer.name}': ${messageOf(error)}`);
      scores[scorer.name] = 0;
      passed = false;
      continue;
    }
    scores[scorer.name] = score;
    if (score < (scorer.threshold ?? 1)) passed = false;
  }
  return {
    id: input.case.id,
    runId: input.runId,
    scores,
    passed,
    ...(errors.length > 0 ? { error: errors.join("; ") } : {}),
    status: result.status,
    answer: result.answer,
    tokens: result.tokens,
    ...(Object.keys(scorerRuns).length > 0 ? { scorerRuns } : {}),
  };
}
