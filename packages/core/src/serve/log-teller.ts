import type { RunEvent, StoredEvent, ToolCall } from "../data/index.js";
import type { EventStore } from "../log/index.js";
import { type AgentStreamEvent, type EventOrigin, TREE_DEPTH_LIMIT } from "../run/index.js";

/**
 * Tells a run's logged events as the live run told them, as its log grows: each model call's
 * `step-started` before its reply, a call's `decision-requested` before its decision, an answer
 * given to a question as its call's result, and at each agent tool call the events of the child
 * run it started (read from the child's log, under the child's origin) before the call's result.
 * A failed attempt is left out, as a reloaded chat leaves it out. What the log never holds (the
 * model's deltas) is not told.
 */
export class LogTeller {
  readonly #runId: string;
  readonly #origin: EventOrigin | undefined;
  readonly #tell: (event: AgentStreamEvent) => void;
  readonly #depth: number;
  /** Events read so far, and from which one on they are told. */
  #read = 0;
  readonly #from: number;
  #step = 0;
  readonly #calls = new Map<string, ToolCall>();
  readonly #asked = new Set<string>();
  /** Calls whose running tool asked a question: its answer is given inside the call. */
  readonly #questioned = new Set<string>();
  readonly #children = new Map<string, LogTeller>();
  #finished: number | undefined;

  constructor(runId: string, from: number, tell: (event: AgentStreamEvent) => void, origin?: EventOrigin, depth = 0) {
    this.#runId = runId;
    this.#from = from;
    this.#tell = tell;
    this.#origin = origin;
    this.#depth = depth;
  }

  /** The runs whose logs it reads: the run's and its children's. */
  get runIds(): Set<string> {
    const ids = new Set([this.#runId]);
    for (const child of this.#children.values()) for (const id of child.runIds) ids.add(id);
    return ids;
  }

  /** Where the followed turn ended (the position of its `run.finished`), once it did. */
  get finishedAt(): number | undefined {
    return this.#finished;
  }

  /** Calls told as waiting for a decision. */
  get asked(): ReadonlySet<string> {
    return this.#asked;
  }

  /** Tells what `events` (the whole log, read now) hold past what was told, and what the children's logs hold. */
  async advance(store: EventStore, events: readonly StoredEvent[]): Promise<void> {
    for (; this.#read < events.length && this.#finished === undefined; this.#read++) {
      const event = events[this.#read] as StoredEvent;
      if (this.#read < this.#from) this.#note(event);
      else await this.#told(store, event, this.#read);
    }
    for (const child of this.#children.values()) {
      if (child.#finished === undefined) await child.advance(store, await store.read(child.#runId));
    }
  }

  /** Tells `call` as waiting for a decision, once. */
  ask(call: ToolCall): void {
    if (this.#asked.has(call.id)) return;
    this.#asked.add(call.id);
    this.#emit({ type: "decision-requested", call });
  }

  /** Learns from an event before the followed turn: the calls and steps it made, told nothing. */
  #note(event: StoredEvent): void {
    if (event.type === "model.replied") {
      this.#step += 1;
      for (const call of event.reply.toolCalls) this.#calls.set(call.id, call);
    } else if (event.type === "tool.asked") this.#questioned.add(event.callId);
  }

  async #told(store: EventStore, event: StoredEvent, position: number): Promise<void> {
    switch (event.type) {
      case "run.started":
      case "user.messaged":
      case "model.failed":
        return;
      case "model.replied":
        this.#note(event);
        this.#emit({ type: "step-started", step: this.#step });
        return this.#logged(event);
      case "approval.decided": {
        const call = this.#calls.get(event.callId);
        if (call !== undefined) this.ask(call);
        return this.#logged(event);
      }
      case "tool.started":
        this.#adopt(event.callId, event.childRunId);
        return this.#logged(event);
      case "tool.asked":
        this.#note(event);
        return this.#logged(event);
      case "question.answered": {
        // An answer to an ask-user call is that call's result, as the page was shown it.
        if (this.#questioned.has(event.callId) || !this.#calls.has(event.callId)) return this.#logged(event);
        const content = JSON.stringify(event.answer) ?? "null";
        return this.#logged({ type: "tool.finished", callId: event.callId, content });
      }
      case "tool.finished": {
        // The child ended before its call did: every event of its log is told before the call's result.
        const child = this.#children.get(event.callId);
        if (child !== undefined) await child.advance(store, await store.read(child.#runId));
        return this.#logged(event);
      }
      case "run.finished":
        this.#finished = position;
        return this.#logged(event);
      default:
        return this.#logged(event);
    }
  }

  #adopt(callId: string, childRunId: string | undefined): void {
    if (childRunId === undefined || this.#children.has(callId) || this.#depth >= TREE_DEPTH_LIMIT) return;
    const callPath = [...(this.#origin?.callPath ?? []), callId];
    this.#children.set(
      callId,
      new LogTeller(childRunId, 0, this.#tell, { callPath, runId: childRunId }, this.#depth + 1),
    );
  }

  #logged(event: RunEvent): void {
    this.#emit({ type: "logged", event });
  }

  #emit(event: AgentStreamEvent): void {
    this.#tell(this.#origin === undefined ? event : { ...event, origin: this.#origin });
  }
}
