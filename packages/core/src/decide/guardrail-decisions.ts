import type { AgentRequest, GuardrailChecked, GuardrailStage, GuardrailTrip, Message } from "../data/index.js";
import { contentText, lastMessage } from "../data/index.js";
import type { AgentContext, GuardStage } from "./agent-context.js";

/**
 * The decisions of a guardrail stage, as plain functions of context and the logged verdicts. A
 * stage asks for every guardrail's check at once; each verdict is logged as it comes; the stage
 * ends as soon as its outcome is known in order of declaration — the first guardrail that trips,
 * once every one declared before it passed — whatever order the checks finish in.
 */

/** Whether this turn's input guardrails still have to pass before its first model call. */
export function isInputUnguarded(context: AgentContext): boolean {
  return !context.inputGuarded && context.guardrails.input.length > 0;
}

/** Whether the answer goes through output guardrails before the run ends `done`. */
export function hasOutputGuardrails(context: AgentContext): boolean {
  return context.guardrails.output.length > 0;
}

/** Starts a stage: one `checkGuardrail` request per guardrail, all at once, on the text the stage checks. */
export function startGuard(
  context: AgentContext,
  stage: GuardrailStage,
): { changes: Partial<AgentContext>; requests: AgentRequest[] } {
  const names = context.guardrails[stage];
  const text =
    stage === "input" ? contentText((lastMessage(context.transcript) as Message).content) : (context.answer ?? "");
  const requests = names.map(
    (name, index): AgentRequest => ({
      type: "checkGuardrail",
      stage,
      index,
      name,
      text,
      transcript: context.transcript,
    }),
  );
  return { changes: { guard: { stage, verdicts: names.map(() => null) } }, requests };
}

/** Whether `event` is the verdict of a guardrail of the current stage that has none yet. */
export function isAwaitedVerdict({ guard, guardrails }: AgentContext, event: GuardrailChecked): boolean {
  return (
    guard !== null &&
    event.stage === guard.stage &&
    guard.verdicts[event.index] === null &&
    guardrails[guard.stage][event.index] === event.name
  );
}

/** Records a verdict in its place. */
export function recordVerdict({ guard }: AgentContext, event: GuardrailChecked): Partial<AgentContext> {
  const stage = guard as GuardStage;
  const verdicts = stage.verdicts.slice();
  verdicts[event.index] = event;
  return { guard: { ...stage, verdicts } };
}

/** The first trip in order of declaration, once every guardrail before it passed; null while undecided or when none tripped. */
export function firstTrip({ guard }: AgentContext): GuardrailTrip | null {
  if (guard === null) return null;
  for (const verdict of guard.verdicts) {
    if (verdict === null) return null;
    if (verdict.tripped) return { name: verdict.name, stage: verdict.stage, reason: verdict.reason ?? "" };
  }
  return null;
}

/** Whether every guardrail of the stage passed. */
export function isGuardPassed({ guard }: AgentContext): boolean {
  return guard?.verdicts.every((verdict) => verdict !== null && !verdict.tripped) ?? false;
}

/** Ends a stage that passed; after the input stage the turn may call the model. */
export function passGuard(context: AgentContext): Partial<AgentContext> {
  return context.guard?.stage === "input" ? { guard: null, inputGuarded: true } : { guard: null };
}
