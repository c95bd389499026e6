import type { FakeAnswer, FakeRoute, RecordedRequest } from "./fake-server.js";

/** One scripted answer: a fixed response or stream, or a function of the request (e.g. one that waits). */
export type FakeStep = FakeAnswer | ((request: RecordedRequest) => FakeAnswer | Promise<FakeAnswer>);

/** A route that answers the n-th valid request with `steps[n]` and fails loudly when the script runs out. */
export function scriptedRoute(steps: readonly FakeStep[]): FakeRoute {
  return (request, index) => {
    const step = steps[index];
    if (step === undefined) {
      throw new Error(`script ran out: request ${index + 1} arrived, the script has ${steps.length} answers`);
    }
    return typeof step === "function" ? step(request) : step;
  };
}
