// The entry module of serve/: the serving core every front door maps a protocol onto.

export {
  type ConversationAsk,
  type ConversationState,
  conversationState,
  decideFollowOn,
  decideTurn,
  nextTurn,
  performStep,
  type Turn,
  type TurnStep,
  takeTurn,
  turnStartOf,
} from "./conversation.js";
export { conversationIdProblem } from "./conversation-id.js";
export { type FollowSettings, followLog, isHeld } from "./follow-log.js";
export { frontDoor, type Refuse } from "./front-door.js";
export { drive, type LiveRun, liveRun, perStore, undriven } from "./live-runs.js";
export { type LogChanges, logChanges } from "./log-changes.js";
export { mayUse, ownerOf, readOwned, runsFor } from "./owner.js";
export { type RunFeed, runFeed } from "./run-feed.js";
export {
  checkTenantBudget,
  type ServedRunOptions,
  type ServeOptions,
  type TurnOptions,
  turnOptionsOf,
} from "./serve-options.js";
export { clientError, isRefusal, refusalOf, reportFailure, ServeRefusal } from "./served-errors.js";
