import type { AgentStreamEvent } from "./stream-events.js";

/** An event waiting for the consumer; a delta's entry takes later pieces of its kind while it waits. */
interface Waiting {
  event: AgentStreamEvent;
}

// Taken entries are dropped from the front in batches of at least this many, so that a take costs O(1).
const COMPACT_AFTER = 1024;

/**
 * The events of a stream waiting for its consumer, then its end or failure. While they wait,
 * deltas are merged per kind, step and call: a new piece of text, of reasoning, or of one tool
 * call's arguments joins that kind's delta still waiting since the last other event, wherever it
 * stands. So however the model interleaves them, at most one delta per kind and call waits, each
 * in the place of its kind's first waiting piece: the order within a kind is kept, the
 * interleaving between kinds is not.
 */
export class StreamQueue {
  #events: Waiting[] = [];
  #head = 0;
  // The deltas waiting since the last event that is not one, by `deltaKey`.
  readonly #open = new Map<string, Waiting>();
  #end: { readonly error?: unknown } | null = null;
  #wake: (() => void) | null = null;
  #abandoned = false;

  push(event: AgentStreamEvent): void {
    if (this.#abandoned) return;
    const key = deltaKey(event);
    if (key === null) this.#open.clear();
    const open = key === null ? undefined : this.#open.get(key);
    const merged = open === undefined ? null : merge(open.event, event);
    if (open !== undefined && merged !== null) {
      open.event = merged;
      return;
    }
    const entry: Waiting = { event };
    this.#events.push(entry);
    if (key !== null) this.#open.set(key, entry);
    this.#notify();
  }

  close(): void {
    this.#end ??= {};
    this.#notify();
  }

  fail(error: unknown): void {
    this.#end ??= { error };
    this.#notify();
  }

  /** How many events wait for the consumer. */
  get size(): number {
    return this.#events.length - this.#head;
  }

  iterator(): AsyncIterator<AgentStreamEvent> {
    return {
      next: async () => {
        for (;;) {
          const event = this.#take();
          if (event !== undefined) return { value: event, done: false };
          if (this.#end !== null) {
            if ("error" in this.#end) throw this.#end.error;
            return { value: undefined, done: true };
          }
          await new Promise<void>((resolve) => {
            this.#wake = resolve;
          });
        }
      },
      return: async () => {
        this.#abandoned = true;
        this.#events = [];
        this.#head = 0;
        this.#open.clear();
        return { value: undefined, done: true };
      },
    };
  }

  #take(): AgentStreamEvent | undefined {
    const entry = this.#events[this.#head];
    if (entry === undefined) return undefined;
    this.#head += 1;
    if (this.#head >= COMPACT_AFTER && this.#head * 2 >= this.#events.length) {
      this.#events = this.#events.slice(this.#head);
      this.#head = 0;
    }
    // A delta the consumer has is no longer open: later pieces make a new one.
    const key = deltaKey(entry.event);
    if (key !== null && this.#open.get(key) === entry) this.#open.delete(key);
    return entry.event;
  }

  #notify(): void {
    const wake = this.#wake;
    this.#wake = null;
    wake?.();
  }
}

/** What a delta merges by: the run it comes from, its kind, step and (for a tool call's) index; `null` for any other event. */
function deltaKey(event: AgentStreamEvent): string | null {
  // Children running at once stream at the same steps: each child's pieces merge only with its own.
  const from = event.origin === undefined ? "" : ` ${event.origin.callPath.join("/")}`;
  if (event.type === "text-delta" || event.type === "reasoning-delta") return `${event.type} ${event.step}${from}`;
  if (event.type === "tool-call-delta") return `${event.type} ${event.step} ${event.index}${from}`;
  return null;
}

/** One delta for two of the same key, or null when they do not merge (a tool call's new id or name). */
function merge(last: AgentStreamEvent, next: AgentStreamEvent): AgentStreamEvent | null {
  if (last.type === "text-delta" && next.type === "text-delta") return { ...last, text: last.text + next.text };
  if (last.type === "reasoning-delta" && next.type === "reasoning-delta") {
    return { ...last, text: last.text + next.text };
  }
  if (
    last.type === "tool-call-delta" &&
    next.type === "tool-call-delta" &&
    (next.id === undefined || next.id === last.id) &&
    (next.name === undefined || next.name === last.name)
  ) {
    return { ...last, argsText: last.argsText + next.argsText };
  }
  return null;
}
