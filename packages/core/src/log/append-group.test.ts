import { describe, expect, it } from "vitest";
import type { StoredEvent } from "../data/index.js";
import { commitAppendGroup, type WaitingAppend } from "./append-group.js";

const event = (seq: number): StoredEvent =>
  ({ seq, type: "run.started", at: "2026-01-01T00:00:00.000Z" }) as unknown as StoredEvent;

function waitingOf(runId: string, seq: number): { append: WaitingAppend; told: Promise<string> } {
  let append!: WaitingAppend;
  const told = new Promise<string>((resolve) => {
    append = {
      runId,
      event: event(seq),
      resolve: () => resolve("committed"),
      reject: (error) => resolve(`refused: ${String(error)}`),
    };
  });
  return { append, told };
}

describe("commitAppendGroup", () => {
  it("tells each append its outcome and keeps the new lengths, for a transaction done at once", async () => {
    const a = waitingOf("a", 0);
    const b = waitingOf("b", 3);
    const known = new Map([["b", 3]]);
    const result = commitAppendGroup([a.append, b.append], known, (lengths) => {
      lengths.set("a", 1);
      return [null, "seq taken"];
    });
    expect(result).toBeUndefined();
    expect(known).toEqual(
      new Map([
        ["b", 3],
        ["a", 1],
      ]),
    );
    expect(await Promise.all([a.told, b.told])).toEqual(["committed", "refused: seq taken"]);
  });

  it("tells every append the error of a transaction that failed, and keeps no length", async () => {
    const a = waitingOf("a", 0);
    const known = new Map<string, number>();
    await commitAppendGroup([a.append], known, async (lengths) => {
      lengths.set("a", 1);
      throw new Error("connection lost");
    });
    expect(known.size).toBe(0);
    expect(await a.told).toBe("refused: Error: connection lost");
  });

  it("settles the promise of an asynchronous transaction after the appends are told", async () => {
    const a = waitingOf("a", 0);
    const known = new Map<string, number>();
    await commitAppendGroup([a.append], known, async (lengths) => {
      lengths.set("a", 1);
      return [null];
    });
    expect(known.get("a")).toBe(1);
    expect(await a.told).toBe("committed");
  });
});
