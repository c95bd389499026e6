import { cpSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll } from "vitest";
import type { Model } from "../../src/index.js";
import { JsonlEventStore } from "../../src/stores/jsonl-store.js";

/** The golden logs, written once and never regenerated. */
export const GOLDEN = join(import.meta.dirname, "..", "fixtures", "golden");

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** A store over a copy of the golden logs in a new temporary directory (removed after the file's tests), so a test may write to it. */
export function goldenStore(): JsonlEventStore {
  const dir = mkdtempSync(join(tmpdir(), "agentloop-golden-v4-"));
  dirs.push(dir);
  cpSync(GOLDEN, dir, { recursive: true });
  return new JsonlEventStore(dir);
}

/** The model of a finished run resumed: it must never be asked. */
export const never: Model = () => {
  throw new Error("a finished run calls no model");
};
