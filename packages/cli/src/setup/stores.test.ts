import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { Importer } from "./optional-module.js";
import { openStore } from "./stores.js";

// Node's own text when better-sqlite3 was built for Node 20 and runs under Node 24.
const VERSION_MISMATCH = Object.assign(
  new Error(
    "The module '/app/node_modules/better-sqlite3/build/Release/better_sqlite3.node'\nwas compiled against a different Node.js version using\nNODE_MODULE_VERSION 115. This version of Node.js requires\nNODE_MODULE_VERSION 137. Please try re-compiling or re-installing\nthe module (for instance, using `npm rebuild` or `npm install`).",
  ),
  { code: "ERR_DLOPEN_FAILED" },
);

/** A real `ERR_DLOPEN_FAILED`: Node asked to load a file that is no compiled module. */
function realDlopenError(): unknown {
  const file = join(mkdtempSync(join(tmpdir(), "agentloop-dlopen-")), "better_sqlite3.node");
  writeFileSync(file, "not a shared object");
  try {
    process.dlopen({ exports: {} }, file);
  } catch (error) {
    return error;
  }
  throw new Error("a text file loaded as a native module");
}

/** `@agentloop/sqlite` whose store fails as better-sqlite3 does when its native module does not load. */
function storeThatThrows(error: unknown): Importer {
  return async () => ({
    SqliteEventStore: class {
      constructor() {
        throw error;
      }
    },
  });
}

describe("opening a SQLite store", () => {
  it("names a native module built for another Node version and the fix, not the log", async () => {
    const opening = openStore(join(tmpdir(), "runs.db"), { load: storeThatThrows(VERSION_MISMATCH) });
    await expect(opening).rejects.toThrow(
      `SQLite stores need better-sqlite3's native module, and it was compiled for another Node version (NODE_MODULE_VERSION 115; Node ${process.version} needs 137): run 'npm rebuild better-sqlite3' (or give a directory to keep JSONL logs)`,
    );
    await expect(opening).rejects.not.toThrow(/not an agentloop log/);
  });

  it("names a native module that does not load at all and the fix", async () => {
    const error = realDlopenError();
    expect(error).toMatchObject({ code: "ERR_DLOPEN_FAILED" });
    const opening = openStore(join(tmpdir(), "runs.db"), { load: storeThatThrows(error) });
    await expect(opening).rejects.toThrow(
      /^SQLite stores need better-sqlite3's native module, and it does not load in Node/,
    );
    await expect(opening).rejects.toThrow(/run 'npm rebuild better-sqlite3'/);
  });

  it("passes on @agentloop/sqlite's line naming better-sqlite3 to install on Node 20, not calling the log bad", async () => {
    const message =
      "@agentloop/sqlite needs better-sqlite3 on Node v20.20.2 (Node 22.13 and later have node:sqlite built in): npm i better-sqlite3";
    const noDriver = Object.assign(new Error(message), { code: "MODULE_NOT_FOUND" });
    const opening = openStore(join(tmpdir(), "runs.db"), { load: storeThatThrows(noDriver) });
    await expect(opening).rejects.toMatchObject({ name: "UsageError", message });
    await expect(opening).rejects.not.toThrow(/not an agentloop log/);
  });

  it("names the package to install when @agentloop/sqlite is not installed", async () => {
    const missing = (specifier: string) => import(`${specifier}-not-installed`);
    await expect(openStore("runs.db", { load: missing })).rejects.toThrow(
      "the SQLite store 'runs.db' needs @agentloop/sqlite, which is not installed: npm i @agentloop/sqlite",
    );
  });
});
