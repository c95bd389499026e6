import type { MessageData, ReportData } from "./page-data.js";

/** What a model call was shown: the note above the list, and the messages. */
export interface Shown {
  readonly note: string;
  readonly messages: readonly MessageData[];
}

/**
 * For the selected row, the messages of the last model call at or before it, rebuilt from the
 * page's data (messages are only appended, so a call is shown every message logged before its
 * reply, but for what the last compaction before it hid: the head, the summary in place of the
 * hidden messages, and the messages kept).
 */
export function shownAt(data: ReportData, selected: number): Shown {
  const replied = data.types.indexOf("model.replied");
  let at = selected;
  while (at >= 0 && data.rows[at]?.[0] !== replied) at--;
  if (at < 0) return { note: "No model call at or before the selected event.", messages: [] };
  let shown: MessageData[] = data.rows.slice(0, at).flatMap((row) => [...row[5]]);
  const view = data.compactions.filter((compaction) => compaction[0] < at).pop();
  let hidden = "";
  if (view !== undefined) {
    const [row, head, keptFrom, summary] = view;
    const kept = shown.slice(keptFrom);
    hidden = ` (compacted at event #${row}: ${keptFrom - head - 1} earlier messages hidden${summary === null ? ")" : ", a summary in their place)"}`;
    shown = [...shown.slice(0, head + 1), ...(summary === null ? [] : [[1, summary] as const]), ...kept];
  }
  return {
    note: `The model call answered at event #${at} was shown these ${shown.length} messages${hidden}:`,
    messages: shown,
  };
}
