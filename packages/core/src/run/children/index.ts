// The entry module of run/children/: what the other rooms and run/ use from it, each name listed.

export {
  type ChildAgent,
  ChildCalls,
  type ChildStart,
  type ChildTool,
  childRunIdOf,
  childToolOf,
  hasChildTools,
  observationOf,
  type ParentContext,
  parentContext,
  treeListing,
  treeQuestionListing,
} from "./child-calls.js";
export {
  childCallsOf,
  type ReadTreeOptions,
  type ReplayedRun,
  type RunTree,
  readTree,
  replayedOf,
  TREE_DEPTH_LIMIT,
  type TreeChild,
  type TreeFold,
  type TreeRun,
} from "./tree-pending.js";
