import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { isPostgresUrl, isSqlitePath, storeShown } from "./stores.js";

/** A new run id that sorts by start time: `<prefix>-20261202-111912-3fa9`. */
export function newRunId(prefix: string, now = new Date()): string {
  const stamp = now
    .toISOString()
    .replace(/\.\d+Z$/, "")
    .replace(/[-:]/g, "")
    .replace("T", "-");
  return `${prefix}-${stamp}-${randomBytes(2).toString("hex")}`;
}

/** How to name one run's log on the command line: `<dir>/<runId>.jsonl`, `<file.db>#<runId>`, or `postgres://…#<runId>` (its password left out). */
export function logPathOf(storePath: string, runId: string): string {
  if (isPostgresUrl(storePath)) return `${storeShown(storePath)}#${runId}`;
  return isSqlitePath(storePath) ? `${storePath}#${runId}` : join(storePath, `${runId}.jsonl`);
}
