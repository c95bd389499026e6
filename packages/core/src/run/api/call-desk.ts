import type { ToolCall } from "../../data/index.js";

/**
 * Where an embedded run's calls wait for the parent, by call id: each waits (`wait`) until a value
 * for it is given (`give`), or the parent lets the run pause (`pause`) and every call waiting, now
 * and later, gets none. The calls that start waiting in one go are announced together, after it,
 * through `announce`. A value offered before its call waits (a restored actor re-reads its log
 * first) is kept for it (`takeEarly`).
 */
export class CallDesk<Waiting extends { readonly call: ToolCall }, Given, Offered = Given> {
  readonly #waiting = new Map<string, { readonly waiting: Waiting; readonly give: (given?: Given) => void }>();
  readonly #early = new Map<string, Offered>();
  readonly #announce: (waiting: readonly Waiting[]) => void;
  #paused = false;
  #announcing = false;

  constructor(announce: (waiting: readonly Waiting[]) => void) {
    this.#announce = announce;
  }

  /** The value offered for call `id` before it waited, taken once; undefined when none came. */
  takeEarly(id: string): { readonly value: Offered } | undefined {
    if (!this.#early.has(id)) return undefined;
    const value = this.#early.get(id) as Offered;
    this.#early.delete(id);
    return { value };
  }

  /** Waits for the value given to `waiting`'s call; none once the desk is paused. */
  wait(waiting: Waiting): Promise<Given | undefined> {
    if (this.#paused) return Promise.resolve(undefined);
    return new Promise<Given | undefined>((give) => {
      this.#waiting.set(waiting.call.id, { waiting, give });
      this.#announceSoon();
    });
  }

  /** Offers `value` for call `id`: what waits for it, to give it to; with nothing waiting, the value is kept for the call. */
  offer(id: string, value: Offered): Waiting | undefined {
    const entry = this.#waiting.get(id);
    if (entry === undefined) this.#early.set(id, value);
    return entry?.waiting;
  }

  /** Gives `given` to `waiting`'s call, if it still waits (not paused, nor given a value already). */
  give(waiting: Waiting, given: Given): void {
    const entry = this.#waiting.get(waiting.call.id);
    if (entry?.waiting !== waiting) return;
    this.#waiting.delete(waiting.call.id);
    entry.give(given);
  }

  /** Leaves every call waiting, now and later, without a value. */
  pause(): void {
    this.#paused = true;
    for (const { give } of this.#waiting.values()) give(undefined);
    this.#waiting.clear();
  }

  /** The calls of one reply wait in one go: they are announced together, after it. */
  #announceSoon(): void {
    if (this.#announcing) return;
    this.#announcing = true;
    queueMicrotask(() => {
      this.#announcing = false;
      if (this.#waiting.size > 0) this.#announce([...this.#waiting.values()].map(({ waiting }) => waiting));
    });
  }
}
