/** Whether `value` is a count: a whole number, 0 or more, that a double holds exactly (tokens, steps, positions). */
export function isCount(value: unknown): value is number {
  return Number.isSafeInteger(value) && (value as number) >= 0;
}
