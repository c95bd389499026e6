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
  return data.seq === row.seq && data.type === row.type && data.at === row.at
    ? data
    : "does not agree with the row's seq, type and at columns";
}
