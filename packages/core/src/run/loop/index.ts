// The entry module of run/loop/: what the other rooms and run/ use from it, each name listed.

export type { ChildPaused, ChildPort } from "./child-port.js";
export type { DrivenMachine } from "./desk.js";
export { type AgentActor, drivenMachine } from "./driven-machine.js";
export {
  InProcess,
  type OncePerformance,
  type Performance,
  type Performing,
  type PromisePerformance,
  type SleepPerformance,
} from "./performing.js";
export {
  REQUEST_TABLE,
  requestKey,
} from "./request-table.js";
export { type Approver, driveEffects, type Resumption } from "./run-effects.js";
export { type EffectPorts, RunLoop } from "./run-loop.js";
export { type AgentStreamEvent, type EventOrigin, originTagging } from "./stream-events.js";
export { StreamQueue } from "./stream-queue.js";
export type { LoopAnswer } from "./works.js";
