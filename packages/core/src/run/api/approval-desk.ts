import type { Decision, ToolCall } from "../../data/index.js";
import type { Approver } from "../loop/index.js";
import { CallDesk } from "./call-desk.js";

/**
 * Where an embedded run's calls that need approval wait for the parent: each call the run's own
 * approver leaves undecided waits here until a decision for its id comes (`decide`), or the parent
 * lets the run pause (`pause`). The calls waiting are announced together, once per batch, through
 * `announce`. A decision that comes before its call is asked for (a restored actor re-reads its log
 * first) is kept for it.
 */
export class ApprovalDesk {
  readonly #desk: CallDesk<{ readonly call: ToolCall }, Decision>;

  constructor(readonly announce: (calls: readonly ToolCall[]) => void) {
    this.#desk = new CallDesk((waiting) => announce(waiting.map(({ call }) => call)));
  }

  /** The approver to run with: `first` (the input's own) decides first; what it leaves undecided waits for the parent. */
  approver(first: Approver | undefined): Approver {
    return async (call) => {
      const own = await first?.(call);
      if (own !== undefined && own !== null) return own;
      return this.#desk.takeEarly(call.id)?.value ?? this.#desk.wait({ call });
    };
  }

  /** Answers the calls named; a decision for a call not asked for yet is kept until it is. */
  decide(decisions: Readonly<Record<string, Decision>>): void {
    for (const [id, decision] of Object.entries(decisions)) {
      const waiting = this.#desk.offer(id, decision);
      if (waiting !== undefined) this.#desk.give(waiting, decision);
    }
  }

  /** Leaves every call waiting, now and later, undecided: the run pauses with `awaiting_approval`. */
  pause(): void {
    this.#desk.pause();
  }
}
