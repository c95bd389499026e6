// The driver's parts, for driving the machine yourself (a durable workflow, a queue worker):
// `@agentloop/core/driver`. Only what a driver needs: the loop and how it performs, the documented
// performers, and what a driver of a tree of runs needs to start and answer children.

export {
  // The performers: each turns one request into the event that answers it.
  type Approver,
  askApprover,
  askModel,
  // A tree of runs: each agent tool's call a child run with its share of the budget.
  type ChildAgent,
  ChildCalls,
  type ChildPort,
  type ChildTool,
  checkAnswer,
  checkChildPrices,
  childRunIdOf,
  childToolOf,
  // The loop, and what it is given.
  type DrivenMachine,
  drivenMachine,
  type EffectPorts,
  hasChildTools,
  // How the loop performs, for a driver that performs elsewhere (each a journaled step).
  type LoopAnswer,
  type ModelFailure,
  mayRunAgain,
  type OncePerformance,
  type ParentContext,
  type Performance,
  type Performing,
  type PromisePerformance,
  parentContext,
  REQUEST_TABLE,
  RunLoop,
  type RunToolOptions,
  requestKey,
  runTool,
  type SleepPerformance,
  type ToolAnswer,
  type ToolAttempt,
  UNANSWERED,
} from "./run/index.js";
