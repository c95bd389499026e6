import type { Message, StoredEvent } from "../data/index.js";
import { shownMessages } from "../decide/index.js";
import { RunFold } from "./run-fold.js";

/**
 * The exact list the model was shown at model call `step` (counting from 1 over the whole run),
 * read from the run's log by folding it (no model, summarizer or tool is called): the whole list,
 * or the view a compaction left. Null when the log reaches no such call. Throws `EventLogError`
 * for events that do not fit the run.
 */
export function shownAtStep(events: readonly StoredEvent[], step: number, runId = ""): readonly Message[] | null {
  const fold = new RunFold({ runId });
  try {
    for (const event of events) {
      if (fold.endsBefore(event)) break;
      fold.apply(event);
      const { snapshot } = fold;
      if (snapshot.matches("callingModel") && snapshot.context.steps + 1 === step) {
        return shownMessages(snapshot.context);
      }
    }
    return null;
  } finally {
    fold.stop();
  }
}
