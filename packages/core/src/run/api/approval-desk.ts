import type { Decision, ToolCall } from "../../data/index.js";
import type { Approver } from "../loop/index.js";

/**
 * Where an embedded run's calls that need approval wait for the parent: each call the run's own
 * approver leaves undecided waits here until a decision for its id comes (`decide`), or the parent
 * lets the run pause (`pause`). The calls waiting are announced together, once per batch, through
 * `announce`. A decision that comes before its call is asked for (a restored actor re-reads its log
 * first) is kept for it.
 */
export class ApprovalDesk {
  readonly #waiting = new Map<string, { readonly call: ToolCall; readonly answer: (decision?: Decision) => void }>();
  readonly #early = new Map<string, Decision>();
  #paused = false;
  #announcing = false;

  constructor(readonly announce: (calls: readonly ToolCall[]) => void) {}

  /** The approver to run with: `first` (the input's own) decides first; what it leaves undecided waits for the parent. */
  approver(first: Approver | undefined): Approver {
    return async (call) => {
      const own = await first?.(call);
      if (own !== undefined && own !== null) return own;
      const early = this.#early.get(call.id);
      if (early !== undefined) {
        this.#early.delete(call.id);
        return early;
      }
      if (this.#paused) return undefined;
      return new Promise<Decision | undefined>((answer) => {
        this.#waiting.set(call.id, { call, answer });
        this.#announceSoon();
      });
    };
  }

  /** Answers the calls named; a decision for a call not asked for yet is kept until it is. */
  decide(decisions: Readonly<Record<string, Decision>>): void {
    for (const [id, decision] of Object.entries(decisions)) {
      const waiting = this.#waiting.get(id);
      if (waiting === undefined) {
        this.#early.set(id, decision);
        continue;
      }
      this.#waiting.delete(id);
      waiting.answer(decision);
    }
  }

  /** Leaves every call waiting, now and later, undecided: the run pauses with `awaiting_approval`. */
  pause(): void {
    this.#paused = true;
    for (const { answer } of this.#waiting.values()) answer(undefined);
    this.#waiting.clear();
  }

  /** The calls of one reply are asked for in one go: they are announced together, after it. */
  #announceSoon(): void {
    if (this.#announcing) return;
    this.#announcing = true;
    queueMicrotask(() => {
      this.#announcing = false;
      if (this.#waiting.size > 0) this.announce([...this.#waiting.values()].map(({ call }) => call));
    });
  }
}
