import { closeSync, fsyncSync, openSync, writeSync } from "node:fs";

/** Writes all of `bytes` to `fd`, however many writes that takes. */
export function writeAll(fd: number, bytes: Uint8Array): void {
  for (let written = 0; written < bytes.byteLength; ) written += writeSync(fd, bytes, written);
}

/**
 * Writes `bytes` as the whole of the file `path`, opened with `flag` (`wx`: a name that must be
 * new), and syncs it when `durable`: written so, a file renamed into place is whole or absent.
 */
export function writeWholeFile(path: string, bytes: Uint8Array, flag: "w" | "wx", durable: boolean): void {
  const fd = openSync(path, flag);
  try {
    writeAll(fd, bytes);
    if (durable) fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** Syncs a folder, so that the names just made or renamed in it survive a power loss. */
export function syncFolder(folder: string): void {
  const fd = openSync(folder, "r");
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
