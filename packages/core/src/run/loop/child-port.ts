import type { ToolCall, ToolPaused, ToolResumed } from "../../data/index.js";
import type { EventAnswer, ToolAnswer, Unanswered } from "../performers/index.js";

/**
 * What a child call comes to besides its observation: its child paused for decisions or answers
 * (`tool.paused`, listing them with chained ids); a call paused so is resumed (`tool.resumed`),
 * or waits on (`unanswered`: nothing was given for what waits below it).
 */
export type ChildAnswer = EventAnswer<ToolPaused> | EventAnswer<ToolResumed> | Unanswered;

/** A child call that paused for decisions or answers. */
export type ChildPaused = EventAnswer<ToolPaused>;

/**
 * What the run loop asks of a run's children: which calls run one, and how. The loop owns this
 * port and the children implement it (`ChildCalls` in-process, a durable engine's child workflows
 * elsewhere), so that the loop never imports what runs a child.
 */
export interface ChildPort {
  /** The child run a call runs, when the run has a store and the call is a valid call of an agent tool. */
  childRunIdOf(call: ToolCall): string | undefined;
  /** Whether the call is one of an agent tool. */
  runsChild(call: ToolCall): boolean;
  /** Starts (or resumes) the call's child; answers as a tool does, or as paused. */
  perform(call: ToolCall, signal: AbortSignal): Promise<ToolAnswer | ChildPaused>;
  /** Gives a call's reservation back: the parent's machine has counted what its child spent. */
  settle(callId: string): void;
  /** The answer to a call paused in its child: resumed, once, when something was given for what waits below it; else unanswered. */
  resume(call: ToolCall): EventAnswer<ToolResumed> | Unanswered;
}
