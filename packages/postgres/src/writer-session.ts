import { type PgPool, type PgPoolClient, sqlState } from "./pg-types.js";

/**
 * A store's own session of the server: it holds the advisory locks of the runs the store acquired
 * and commits its appends, one piece of work at a time. When the connection ends (the server
 * restarted, the network failed, an administrator ended it), the server has freed its locks:
 * `onLost` is told, and the next piece of work opens a new session.
 */
export class WriterSession {
  readonly #pool: PgPool;
  readonly #onLost: (why: string) => void;
  #client: Promise<PgPoolClient> | null = null;
  #chain: Promise<unknown> = Promise.resolve();

  constructor(pool: PgPool, onLost: (why: string) => void) {
    this.#pool = pool;
    this.#onLost = onLost;
  }

  /** Runs `work` on the session once the work before it is done; a connection that fails in it is given up. */
  run<T>(work: (client: PgPoolClient) => Promise<T>): Promise<T> {
    const next = this.#chain.then(async () => {
      const opening = this.#open();
      const client = await opening;
      try {
        return await work(client);
      } catch (error) {
        if (isConnectionLoss(error)) this.#drop(opening, client, error);
        throw error;
      }
    });
    this.#chain = next.catch(() => undefined);
    return next;
  }

  /** Waits for the work given so far, then hands the connection back to the pool. */
  async close(): Promise<void> {
    await this.#chain;
    const opening = this.#client;
    this.#client = null;
    if (opening !== null) (await opening.catch(() => null))?.release();
  }

  #open(): Promise<PgPoolClient> {
    if (this.#client !== null) return this.#client;
    const opening = this.#pool.connect().then((client) => {
      client.on("error", (error) => this.#drop(opening, client, error));
      return client;
    });
    this.#client = opening;
    opening.catch(() => {
      if (this.#client === opening) this.#client = null;
    });
    return opening;
  }

  #drop(opening: Promise<PgPoolClient>, client: PgPoolClient, error: unknown): void {
    if (this.#client !== opening) return;
    this.#client = null;
    client.release(error instanceof Error ? error : true);
    this.#onLost(error instanceof Error ? error.message : String(error));
  }
}

/** Whether an error means the session is gone: no server error code, or one of a lost connection or an ended session. */
function isConnectionLoss(error: unknown): boolean {
  if (error instanceof Error && error.name === "EventLogError") return false;
  const state = sqlState(error);
  return state === undefined || state.startsWith("08") || state.startsWith("57");
}
