// The durable-store suites that need real processes, each child on the BUILT packages: kill -9 at every
// event, one writer per run, two resumes racing, a question waiting across a crash.
export {
  type BuiltPackage,
  type CrashStore,
  type CrashSuiteOptions,
  describeCrashTests,
  type RawLog,
} from "./crash-suite.js";
export { describeLockProcesses, type LockSuiteOptions } from "./lock-suite.js";
export { describeQuestionCrash, type QuestionCrashOptions } from "./question-crash.js";
export { describeSweepKill, type SweepKillOptions } from "./sweep-kill.js";
export { describeWriterRace, type WriterRaceOptions } from "./writer-race.js";
