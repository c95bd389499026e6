import type { AgentRequest, MemoryHit, MemoryRecalled, MemoryStore } from "../../data/index.js";
import { describeValue } from "../../data/index.js";
import { answerOf, type EventAnswer } from "./event-answer.js";

/** A `recallMemory` request. */
export type RecallRequest = Extract<AgentRequest, { type: "recallMemory" }>;

/**
 * Asks the store for the turn's memories and answers with `memory.recalled`, the hits copied as
 * plain data (so that what is logged is what the model is shown). Rejects when the run has no store
 * (it was started with memory and given none now) or the store fails or gives what is not hits:
 * the run then rejects with that error, and its log is resumable from the recall.
 */
export async function recallMemory(
  store: MemoryStore | undefined,
  request: RecallRequest,
): Promise<EventAnswer<MemoryRecalled>> {
  if (store === undefined) {
    throw new TypeError("the run was started with memory: give memory (its store) again to go on with it");
  }
  const found: unknown = await store.search(request.scope, request.query, request.limit);
  const { scope, query, limit } = request;
  return answerOf({ type: "memory.recalled", scope, query, hits: checkedHits(found, limit) });
}

/** What a store's search gave, as hits: at most `limit`, each with string key and value and a finite score. */
function checkedHits(found: unknown, limit: number): MemoryHit[] {
  if (!Array.isArray(found))
    throw new TypeError(`a memory store's search must give a list of hits; got ${describeValue(found)}`);
  if (found.length > limit)
    throw new RangeError(`a memory store's search gave ${found.length} hits for a limit of ${limit}`);
  return found.map((hit: unknown) => {
    const { key, value, score } = (hit ?? {}) as Partial<MemoryHit>;
    if (typeof key !== "string" || typeof value !== "string" || typeof score !== "number" || !Number.isFinite(score)) {
      throw new TypeError("a memory store's hit must have a key and a value (strings) and a finite score");
    }
    return { key, value, score };
  });
}
