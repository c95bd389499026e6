import type { CompactedView, CompactionSettings, LogFlags, RunSettings, Transcript } from "../data/index.js";
import { tokensOfLength } from "../data/index.js";

/** A run's compaction in the machine's context: its settings, what the model is shown now, and the sizes the estimate needs. */
export interface CompactionState extends CompactionSettings, CompactedView {
  /** JSON characters of the hidden messages. */
  readonly hiddenChars: number;
  /** JSON characters of the summary's message; 0 without one. */
  readonly summaryChars: number;
}

/** The compaction a run starts with (nothing hidden), or null when the run never compacts. */
export function initialCompaction(settings: RunSettings, flags: LogFlags): CompactionState | null {
  if (settings.compaction === undefined || !flags.contextCompaction) return null;
  const head = 1 + (settings.history?.length ?? 0);
  return { ...settings.compaction, head, keptFrom: head + 1, summary: null, hiddenChars: 0, summaryChars: 0 };
}

/** Whether the model is shown less than the whole list. */
export function isCompacted(compaction: CompactionState): boolean {
  return compaction.keptFrom > compaction.head + 1;
}

/** Equals `countTokens(viewMessages(transcript, compaction))`, in O(1) from the kept lengths. */
export function shownTokens(transcript: Transcript, compaction: CompactionState): number {
  const { head, keptFrom, summary, hiddenChars, summaryChars } = compaction;
  const length = transcript.length - (keptFrom - head - 1) + (summary === null ? 0 : 1);
  return tokensOfLength(transcript.chars - hiddenChars + summaryChars + 2 + Math.max(0, length - 1));
}
