import { describe, expect, it } from "vitest";
import { SqliteEventStore } from "../src/index.js";
import { chooseDriver, type Require } from "../src/sqlite-driver.js";
import { openRaw } from "./raw-sqlite.js";

/** A `require` that knows only `modules`, failing as Node does for the rest. */
function requireOnly(modules: Record<string, unknown>): Require {
  return (id) => {
    if (id in modules) return modules[id];
    const code = id.startsWith("node:") ? "ERR_UNKNOWN_BUILTIN_MODULE" : "MODULE_NOT_FOUND";
    throw Object.assign(new Error(`Cannot find module '${id}'`), { code });
  };
}

describe("the SQLite driver", () => {
  const major = Number(process.versions.node.split(".")[0]);

  it("is node:sqlite from Node 23 on, and better-sqlite3 on Node 20", () => {
    const store = new SqliteEventStore(":memory:");
    try {
      if (major >= 23) expect(store.driver).toBe("node:sqlite");
      if (major === 20) expect(store.driver).toBe("better-sqlite3");
    } finally {
      store.close();
    }
  });

  it("names in one line what to install where Node has no node:sqlite and better-sqlite3 is missing", () => {
    expect(() => chooseDriver(requireOnly({}))).toThrow(
      expect.objectContaining({
        message: `@agentloop/sqlite needs better-sqlite3 on Node ${process.version} (Node 22.13 and later have node:sqlite built in): npm i better-sqlite3`,
        code: "MODULE_NOT_FOUND",
      }),
    );
  });

  it("passes on any other failure of loading better-sqlite3 as it is", () => {
    const broken = new Error("better-sqlite3 threw while loading");
    const load: Require = (id) => {
      if (id === "better-sqlite3") throw broken;
      return requireOnly({})(id);
    };
    expect(() => chooseDriver(load)).toThrow(broken);
  });

  it("gives SQLite's errors SQLite's name in code, whichever driver", () => {
    const db = openRaw(":memory:");
    try {
      db.exec("CREATE TABLE t (k TEXT PRIMARY KEY)");
      const insert = db.prepare("INSERT INTO t VALUES (?)");
      insert.run("a");
      expect(() => insert.run("a")).toThrow(
        expect.objectContaining({ code: expect.stringMatching(/^SQLITE_CONSTRAINT/) }),
      );
      expect(() => db.exec("SELEKT 1")).toThrow(expect.objectContaining({ code: "SQLITE_ERROR" }));
    } finally {
      db.close();
    }
  });
});
