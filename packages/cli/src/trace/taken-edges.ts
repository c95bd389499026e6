import { type AnyStateMachine, type AnyTransitionDefinition, getNextTransitions } from "xstate";
import { edgeIdOf } from "../chart/statechart.js";

/** Results of the machine's named guards while one event was folded, by the context they saw. */
export type GuardRecord = WeakMap<object, Map<string, boolean>>;

/**
 * The machine with every named guard wrapped to note its result (by the context it was asked
 * about) in `record()`: the same decisions, made visible through XState's public `provide`, so
 * that the transitions a microstep took can be named without XState's private fields.
 */
export function traceGuards<M extends AnyStateMachine>(machine: M, record: () => GuardRecord): M {
  const guards = (machine.implementations.guards ?? {}) as Record<string, (...args: unknown[]) => boolean>;
  const wrapped = Object.fromEntries(
    Object.entries(guards).map(([name, guard]) => [
      name,
      (args: { context: object }, params: unknown) => {
        const value = guard(args, params);
        const seen = record().get(args.context) ?? new Map<string, boolean>();
        seen.set(name, value);
        record().set(args.context, seen);
        return value;
      },
    ]),
  );
  return machine.provide({ guards: wrapped } as Parameters<M["provide"]>[0]) as M;
}

/**
 * The chart ids of the transitions one microstep took from `before`: of the transitions open in
 * `before` for `eventType` (`""` for eventless ones), in XState's order of selection, the first
 * whose guard held (as `seen` noted) and whose target fits where the microstep ended (`fits`).
 */
export function takenEdges(
  before: Parameters<typeof getNextTransitions>[0],
  eventType: string,
  seen: ReadonlyMap<string, boolean> | undefined,
  fits: (transition: AnyTransitionDefinition) => boolean,
): string[] {
  const candidates = getNextTransitions(before).filter((transition) => transition.eventType === eventType);
  const passing = candidates.filter((transition) => guardHolds(transition.guard, seen) !== false);
  const taken = passing.find(fits) ?? candidates.find(fits);
  return taken === undefined ? [] : [edgeIdOf(taken)];
}

/** Whether a guard held: `true`/`false` when the record tells, `undefined` when it cannot (an inline guard). */
function guardHolds(guard: unknown, seen: ReadonlyMap<string, boolean> | undefined): boolean | undefined {
  if (guard === undefined || guard === null) return true;
  if (typeof guard === "string") return seen?.get(guard);
  if (typeof guard === "object" && "type" in guard) return seen?.get(String(guard.type));
  if (typeof guard !== "function") return undefined;
  const parts = "guards" in guard && Array.isArray(guard.guards) ? guard.guards : null;
  if (parts === null) return undefined;
  const values = parts.map((part: unknown) => guardHolds(part, seen));
  if (guard.name === "not") return values[0] === undefined ? undefined : !values[0];
  if (values.includes(undefined)) return undefined;
  return guard.name === "or" ? values.includes(true) : values.every(Boolean);
}
