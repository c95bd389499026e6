import type { EventLogError } from "@agentloop/core";
import { expect } from "vitest";

/**
 * The `EventLogError` a promise rejects with. Checked by name and fields, not `instanceof`: a store
 * from another package holds the built core's class, and these tests the source's.
 */
export async function logError(promise: Promise<unknown>): Promise<EventLogError> {
  const error = await promise.then(
    () => null,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(Error);
  expect(error).toMatchObject({ name: "EventLogError" });
  return error as EventLogError;
}
