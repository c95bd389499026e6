// The few calls the store makes on pg, as structural types: a `pg.Pool` fits them, and the published
// types never reach @types/pg.

/** What a query gives back. */
export interface PgResult<Row> {
  readonly rows: Row[];
  readonly rowCount: number | null;
}

/** A pool or a client: something that runs a query. */
export interface PgQueryable {
  query<Row = Record<string, unknown>>(text: string, values?: unknown[]): Promise<PgResult<Row>>;
}

/** A notification a `LISTEN`ing client receives. */
export interface PgNotification {
  readonly channel: string;
  readonly payload?: string | undefined;
}

/** A client checked out of a pool: one session of the server. */
export interface PgPoolClient extends PgQueryable {
  release(error?: Error | boolean): void;
  on(event: "error", listener: (error: Error) => void): unknown;
  on(event: "notification", listener: (message: PgNotification) => void): unknown;
  removeListener(event: "error", listener: (error: Error) => void): unknown;
}

/** A `pg.Pool`, as the store uses it. */
export interface PgPool extends PgQueryable {
  connect(): Promise<PgPoolClient>;
  end(): Promise<void>;
}

/** The code of a server error (`23505` a unique violation, …), or undefined for anything else. */
export function sqlState(error: unknown): string | undefined {
  const code = typeof error === "object" && error !== null && "code" in error ? error.code : undefined;
  return typeof code === "string" && /^[0-9A-Z]{5}$/.test(code) ? code : undefined;
}
