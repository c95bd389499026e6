import { type PgPool, type PgPoolClient, sqlState } from "./pg-types.js";

/**
 * How the server notices that the other end of this session went silent (its machine lost power,
 * the network between them was cut): TCP keepalives after 10 s idle, every 5 s, given up after 3
 * unanswered, and unacknowledged data given up after 25 s (PostgreSQL 12 and later). The
 * operating system's own default is 2 hours and 11 minutes, for which a dead machine's runs
 * would stay locked. Set on the session, so nothing of the server's configuration is needed.
 */
export const SILENT_PEER: readonly (readonly [setting: string, value: string])[] = [
  ["tcp_keepalives_idle", "10"],
  ["tcp_keepalives_interval", "5"],
  ["tcp_keepalives_count", "3"],
  ["tcp_user_timeout", "25000"],
];

/**
 * One statement that sets each of `settings` on the session, each on its own: one the server
 * refuses (`tcp_user_timeout` before PostgreSQL 12; the interval and count where the server's
 * system cannot set them, as on Windows) is left at its default, and the others still apply.
 */
export function sessionSettingsSql(settings: readonly (readonly [string, string])[]): string {
  return eachOnItsOwn(
    settings.map(([setting, value]) => `PERFORM set_config(${literal(setting)}, ${literal(value)}, false)`),
  );
}

/** `statements` as one `DO` block, each in its own exception block: one that fails leaves the others done. */
function eachOnItsOwn(statements: readonly string[]): string {
  const each = statements.map((statement) => `BEGIN ${statement}; EXCEPTION WHEN OTHERS THEN NULL; END;`);
  return `DO $agentloop$ BEGIN ${each.join(" ")} END $agentloop$`;
}

function literal(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}

/** The statement a session opens with, made once. */
const SET_SILENT_PEER = sessionSettingsSql(SILENT_PEER);
/** The settings put back to the session's defaults, before its connection returns to a pool the caller may share. */
const RESET_SILENT_PEER = eachOnItsOwn(SILENT_PEER.map(([setting]) => `EXECUTE ${literal(`RESET ${setting}`)}`));

/**
 * A store's own session of the server: it holds the advisory locks of the runs the store acquired
 * and commits its appends, one piece of work at a time. When the connection ends (the server
 * restarted, the network failed, an administrator ended it, or its keepalives went unanswered),
 * the server has freed its locks: `onLost` is told, and the next piece of work opens a new session.
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
    const client = opening === null ? null : await opening.catch(() => null);
    if (client === null) return;
    // Best effort: a connection that cannot take it is ended rather than handed back.
    const reset = await client.query(RESET_SILENT_PEER).then(
      () => true,
      () => false,
    );
    client.release(!reset);
  }

  #open(): Promise<PgPoolClient> {
    if (this.#client !== null) return this.#client;
    const opening = this.#pool.connect().then(async (client) => {
      client.on("error", (error) => this.#drop(opening, client, error));
      try {
        await client.query(SET_SILENT_PEER);
      } catch (error) {
        // A server that takes no DO block keeps the operating system's keepalives; a lost connection is lost.
        if (isConnectionLoss(error)) {
          this.#drop(opening, client, error);
          throw error;
        }
      }
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
