import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { BlobSource } from "../log/index.js";
import { syncFolder, writeWholeFile } from "./synced-writes.js";

/**
 * A run's blobs in a folder of their own (`<runId>.blobs/` beside `<runId>.jsonl`), one file per
 * blob named by its SHA-256. A blob is written to a temporary name and renamed into place, so a
 * crash leaves it whole or absent, never torn; one already there is not written again. `durable`
 * syncs each new file and the folder before the line that refers to it is written.
 */
export function writeBlobs(folder: string, blobs: ReadonlyMap<string, Uint8Array>, durable: boolean): void {
  let added = false;
  for (const [sha256, bytes] of blobs) {
    const path = join(folder, sha256);
    if (existsSync(path)) continue;
    mkdirSync(folder, { recursive: true });
    const temporary = join(folder, `.${sha256}.${randomBytes(6).toString("hex")}.tmp`);
    try {
      writeWholeFile(temporary, bytes, "wx", durable);
      renameSync(temporary, path);
    } catch (error) {
      rmSync(temporary, { force: true });
      throw error;
    }
    added = true;
  }
  if (added && durable) syncFolder(folder);
}

/** The run's blobs as `parseEventLog` reads them: a missing file is a missing blob. */
export function blobFolderSource(folder: string): BlobSource {
  return {
    where: `the folder ${folder}`,
    read(sha256) {
      try {
        return readFileSync(join(folder, sha256));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
        throw error;
      }
    },
  };
}
