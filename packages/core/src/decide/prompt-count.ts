/**
 * What the providers counted of the prompts, as the budget checks need it: per model, how many
 * tokens its last counted prompt had past the estimate of that prompt. The next prompt to that
 * model is then at least its count plus the estimate of what came since, which is the estimate of
 * the next prompt plus that surplus. Folded from the logged usage of each reply, so replay and
 * resume decide the same; a run whose replies report no usage keeps none.
 */

/** A model the run calls, as the log tells them apart: 0 the run's, n its n-th fallback, or the name `prepareStep` picked it by. */
export type CalledModel = number | string;

/** What a provider counted of one model's last prompt past the estimate of that prompt (0 when it counted no more). */
export interface PromptCount {
  readonly model: CalledModel;
  readonly surplus: number;
}

/** No count yet: where every run that counts prompts starts, and where a compaction leaves it. */
export const NO_COUNTS: readonly PromptCount[] = Object.freeze([]);

/** The tokens `model`'s next prompt has at least past its estimate: what its provider counted past the last one's, else 0. */
export function surplusOf(counts: readonly PromptCount[], model: CalledModel): number {
  for (const count of counts) if (count.model === model) return count.surplus;
  return 0;
}

/**
 * The counts after `model`'s provider counted `reported` prompt tokens for a prompt estimated at
 * `estimated`: its entry replaced (or added), the others kept. The same list when nothing changes,
 * so a model that counts no more than the estimate costs no copy.
 */
export function withCount(
  counts: readonly PromptCount[],
  model: CalledModel,
  reported: number,
  estimated: number,
): readonly PromptCount[] {
  const surplus = Math.max(0, reported - estimated);
  const at = counts.findIndex((count) => count.model === model);
  if (at < 0) return surplus === 0 ? counts : [...counts, { model, surplus }];
  if ((counts[at] as PromptCount).surplus === surplus) return counts;
  return counts.map((count, index) => (index === at ? { model, surplus } : count));
}
