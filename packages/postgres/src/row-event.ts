/** A row of the events table, as the store reads it. */
export interface EventRow {
  readonly seq: number;
  readonly type: string;
  readonly at: string;
  readonly data: string;
}

/** The event a row holds (the whole event as written, which must agree with its columns), or what is wrong with it. */
export function eventOf(row: EventRow): Record<string, unknown> | string {
  let value: unknown;
  try {
    value = JSON.parse(row.data);
  } catch (error) {
    return `is not valid JSON (${error instanceof Error ? error.message : String(error)})`;
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) return "is not a JSON object";
  const data = value as Record<string, unknown>;
  // An anchor an earlier version wrote has its own time in the column.
  return data.seq === row.seq && data.type === row.type && (rowTime(data) === row.at || data.at === row.at)
    ? data
    : "does not agree with the row's seq, type and at columns";
}

/**
 * The `at` column of an event's row: the event's time, but a `run.anchored`'s run's start (its
 * `run.started`'s time), since the first row's `at` is what `listPage` orders by: a pruned run
 * stays where it was in the list.
 */
export function rowTime(event: object): unknown {
  const { type, at, started } = event as { type?: unknown; at?: unknown; started?: unknown };
  if (type !== "run.anchored") return at;
  return typeof started === "object" && started !== null ? (started as { at?: unknown }).at : undefined;
}
