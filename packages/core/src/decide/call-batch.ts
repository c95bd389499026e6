import type { MessageContent, ToolCall } from "../data/index.js";

/** Where one call of a reply stands: not yet taken up, waiting for a decision, running, or answered. */
export type CallState = "waiting" | "deciding" | "running" | "answered";

/**
 * How far each call has come, shared by every batch of one lineage: the version at which each
 * call was entered, started running and was answered (`Infinity`: not yet), and its observation.
 * A call only moves forward, so a batch at version `v` sees each call as of `v`.
 */
interface Progress {
  version: number;
  readonly enteredAt: number[];
  readonly runningAt: number[];
  readonly answeredAt: number[];
  readonly contents: (MessageContent | undefined)[];
  /** Whether each answered call's observation is an error. */
  readonly errors: boolean[];
}

/** What a batch knows from the start and never changes: calls by id, and where entering goes on after refused calls. */
interface Plan {
  readonly byId: ReadonlyMap<string, readonly number[]>;
  readonly unrefused: readonly number[];
}

const NO_RESULTS: ReadonlyMap<number, string> = new Map();

/** A change to a batch, applied by `CallBatch.apply`. */
export type CallChange =
  | { readonly kind: "enter"; readonly index: number; readonly deciding: boolean }
  | { readonly kind: "approve"; readonly index: number }
  | { readonly kind: "answer"; readonly index: number; readonly content: MessageContent; readonly isError?: boolean };

/**
 * The calls of the last reply and where each stands, as an immutable value with O(1) reads and
 * changes. Batches of one lineage share their arrays: the newest batch changes them in place,
 * stamping each change with a new version, and an older batch sees only changes up to its own
 * version. Changing an older batch (a fork, a graph explored from an earlier state) first copies
 * what it sees, so that no batch ever sees another's changes. A reply of 20,000 calls therefore
 * costs the same per call as one of two.
 */
export class CallBatch {
  readonly calls: readonly ToolCall[];
  /** Calls before this index have been taken up (entered, or answered without running). */
  readonly next: number;
  /** Entered calls not answered yet. */
  readonly inProgress: number;
  /** Calls running now. */
  readonly running: number;
  /** Calls whose tool message is in the list: always a prefix of the reply, in call order. */
  readonly appended: number;
  /** The first call that stops the run (a repeated call under the `stop` policy), or `calls.length`. */
  readonly stopAt: number;
  readonly #progress: Progress;
  readonly #version: number;
  readonly #plan: Plan;

  private constructor(
    calls: readonly ToolCall[],
    counters: Pick<CallBatch, "next" | "inProgress" | "running" | "appended" | "stopAt">,
    progress: Progress,
    version: number,
    plan: Plan,
  ) {
    this.calls = calls;
    this.next = counters.next;
    this.inProgress = counters.inProgress;
    this.running = counters.running;
    this.appended = counters.appended;
    this.stopAt = counters.stopAt;
    this.#progress = progress;
    this.#version = version;
    this.#plan = plan;
  }

  /**
   * A batch of `calls` where the calls with an entry in `refusals` are answered already (with an
   * error), and those in `results` with that observation (a handoff's), and none is entered.
   */
  static of(
    calls: readonly ToolCall[],
    refusals: ReadonlyMap<number, string>,
    stopAt: number,
    results: ReadonlyMap<number, string> = NO_RESULTS,
  ): CallBatch {
    const n = calls.length;
    const progress: Progress = {
      version: 0,
      enteredAt: new Array<number>(n).fill(Number.POSITIVE_INFINITY),
      runningAt: new Array<number>(n).fill(Number.POSITIVE_INFINITY),
      answeredAt: new Array<number>(n).fill(Number.POSITIVE_INFINITY),
      contents: new Array<MessageContent | undefined>(n).fill(undefined),
      errors: new Array<boolean>(n).fill(false),
    };
    for (const [index, content] of refusals) {
      progress.answeredAt[index] = 0;
      progress.contents[index] = content;
      progress.errors[index] = true;
    }
    for (const [index, content] of results) {
      progress.answeredAt[index] = 0;
      progress.contents[index] = content;
    }
    const byId = new Map<string, number[]>();
    for (const [index, call] of calls.entries()) {
      const indexes = byId.get(call.id);
      if (indexes === undefined) byId.set(call.id, [index]);
      else indexes.push(index);
    }
    // The first call at or after each index that was not refused already: where entering resumes.
    const unrefused = new Array<number>(n + 1).fill(n);
    for (let index = n - 1; index >= 0; index--) {
      unrefused[index] = refusals.has(index) || results.has(index) ? (unrefused[index + 1] as number) : index;
    }
    const counters = { next: 0, inProgress: 0, running: 0, appended: 0, stopAt };
    return new CallBatch(calls, counters, progress, 0, { byId, unrefused });
  }

  /** The next call to enter, in call order (calls refused without running are passed over), or `stopAt` when none is left. */
  nextToEnter(): number {
    return this.skipFrom(this.next);
  }

  /** The first call at or after `index` that was not refused without running, or `stopAt`. */
  skipFrom(index: number): number {
    return Math.min(this.#plan.unrefused[index] as number, this.stopAt);
  }

  /** Where call `index` stands in this batch. */
  stateOf(index: number): CallState {
    const p = this.#progress;
    const v = this.#version;
    if ((p.answeredAt[index] as number) <= v) return "answered";
    if ((p.runningAt[index] as number) <= v) return "running";
    if ((p.enteredAt[index] as number) <= v) return "deciding";
    return "waiting";
  }

  /** The observation of an answered call, else undefined. */
  contentOf(index: number): MessageContent | undefined {
    return this.stateOf(index) === "answered" ? this.#progress.contents[index] : undefined;
  }

  /** Whether an answered call's observation is an error (a refused call's always is). */
  isErrorAt(index: number): boolean {
    return this.stateOf(index) === "answered" && (this.#progress.errors[index] as boolean);
  }

  /** The first call with this id that is in `state` (several calls share an id only in logs of schema 1), or -1. */
  find(callId: string, state: CallState): number {
    for (const index of this.#plan.byId.get(callId) ?? []) if (this.stateOf(index) === state) return index;
    return -1;
  }

  /** The indexes of the calls in `state`, in call order. */
  indexesIn(state: CallState): number[] {
    const found: number[] = [];
    for (let index = this.appended; index < this.calls.length; index++) {
      if (this.stateOf(index) === state) found.push(index);
    }
    return found;
  }

  /** This batch with `changes` applied, and `appended` moved to `appended`; never changes what this batch shows. */
  apply(changes: readonly CallChange[], appended = this.appended): CallBatch {
    const progress = this.#progress.version === this.#version ? this.#progress : this.#copy();
    const version = progress.version + 1;
    progress.version = version;
    let { next, inProgress, running } = this;
    for (const change of changes) {
      const { index } = change;
      switch (change.kind) {
        case "enter":
          progress.enteredAt[index] = version;
          if (!change.deciding) progress.runningAt[index] = version;
          next = Math.max(next, index + 1);
          inProgress += 1;
          if (!change.deciding) running += 1;
          break;
        case "approve":
          progress.runningAt[index] = version;
          running += 1;
          break;
        case "answer":
          if ((progress.runningAt[index] as number) < version) running -= 1;
          if ((progress.enteredAt[index] as number) < version) inProgress -= 1;
          progress.answeredAt[index] = version;
          progress.contents[index] = change.content;
          progress.errors[index] = change.isError ?? false;
          break;
      }
    }
    const counters = { next, inProgress, running, appended, stopAt: this.stopAt };
    return new CallBatch(this.calls, counters, progress, version, this.#plan);
  }

  /** A new lineage holding what this batch sees, for a change to a batch that is not the newest. */
  #copy(): Progress {
    const v = this.#version;
    const { enteredAt, runningAt, answeredAt, contents, errors } = this.#progress;
    const hide = (stamps: readonly number[]) => stamps.map((stamp) => (stamp <= v ? stamp : Number.POSITIVE_INFINITY));
    const copy: Progress = {
      version: v,
      enteredAt: hide(enteredAt),
      runningAt: hide(runningAt),
      answeredAt: hide(answeredAt),
      contents: contents.map((content, index) => ((answeredAt[index] as number) <= v ? content : undefined)),
      errors: errors.map((error, index) => (answeredAt[index] as number) <= v && error),
    };
    return copy;
  }

  /** Plain data for JSON (the inspector, logs of snapshots): each call with where it stands. */
  toJSON(): object {
    return {
      calls: this.calls.map((call, index) => ({ id: call.id, name: call.name, state: this.stateOf(index) })),
      next: this.next,
      appended: this.appended,
    };
  }
}
