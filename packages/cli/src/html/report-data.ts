import {
  contentText,
  isErrorMessage,
  type Message,
  type MessageContent,
  RUN_EVENT_TYPES,
  type StoredEvent,
  summaryMessage,
} from "../core-api.js";
import { formatDuration, offsetOf } from "../output/duration.js";
import { partLine, partNote, partsText } from "../output/parts-text.js";
import { describeEvent, descriptionContext, type EventDescription } from "../trace/event-description.js";
import { endNotes, type Note } from "../trace/notes.js";
import type { RunTrace } from "../trace/run-trace.js";
import type { DescriptionTemplate, MediaData, MessageData, ReportData, RowData } from "./client/page-data.js";
import { movesHtml } from "./timeline-html.js";

export type { MessageData, ReportData, RowData } from "./client/page-data.js";

/** The event types, by the number a row carries: every type a log may hold, as core lists them. */
export const EVENT_TYPES: readonly StoredEvent["type"][] = RUN_EVENT_TYPES;

/** Marks kept on the slider's track: more would sit on the same pixels. */
const MARK_SLOTS = 400;

/**
 * The report's data from one fold of the log. Rows hold indexes and short texts; what repeats
 * (the states, the moves between them, their descriptions) is stored once. The page builds the
 * HTML of the rows it shows, so that its size grows with the log's content, not with its markup.
 */
export function reportData(
  trace: RunTrace,
  window: number,
  waiting: readonly { id: string; name: string }[] = [],
  questions: readonly { id: string }[] = trace.result === null ? trace.questions : [],
  blobBase: string | null = null,
): ReportData {
  const blobs: Record<string, string> = {};
  const ids = new Indexer<string>();
  const moves = new Indexer<string>();
  const moveList: (readonly [string, readonly number[]])[] = [];
  const templates = new Indexer<string>();
  const descriptions: DescriptionTemplate[] = [];
  const start = Date.parse(trace.entries[0]?.event.at ?? "");
  const context = descriptionContext(trace.entries);
  const rows = trace.entries.map((entry): RowData => {
    const text = movesHtml(trace.chart, entry.moves);
    const lit = entry.moves.flatMap((move) => [...move.entered.filter((id) => id !== trace.chart.id), ...move.edges]);
    const key = `${text}\n${lit.join(" ")}`;
    const known = moves.size;
    const moveIndex = moves.of(key);
    if (moveIndex === known) moveList.push([text, lit.map((id) => ids.of(id))]);
    return [
      EVENT_TYPES.indexOf(entry.event.type),
      formatDuration(offsetOf(entry.event.at, start)),
      ids.of(entry.state),
      moveIndex,
      descriptionRow(describeEvent(entry, context), templates, descriptions),
      entry.messages.map(messageData),
      ...withMedia(entry.messages, blobBase === null ? blobs : null),
    ];
  });
  const notes: Record<number, (readonly [string, string])[]> = {};
  const end = trace.entries.length;
  const all = new Map(trace.notes).set(end, endNotes(trace.notes.get(end), waiting, questions));
  for (const [at, list] of all) if (list.length > 0) notes[at] = list.map((note) => [note.kind, note.text] as const);
  return {
    chartId: trace.chart.id,
    types: EVENT_TYPES,
    ids: ids.values(),
    moves: moveList,
    descriptions,
    rows,
    notes,
    marks: marksOf(all, rows.length),
    window,
    compactions: compactionsOf(trace),
    ...(blobBase === null ? (Object.keys(blobs).length === 0 ? {} : { blobs }) : { blobBase }),
  };
}

/** The row's media, as its last element when it has any; each part's bytes go into `blobs` once, when given. */
function withMedia(messages: readonly Message[], blobs: Record<string, string> | null): [] | [readonly MediaData[]] {
  const media: MediaData[] = [];
  for (const message of messages) {
    if (message.role !== "user" && message.role !== "tool") continue;
    const content: MessageContent = message.content;
    if (typeof content === "string") continue;
    for (const part of content) {
      if (part.type === "text") continue;
      const note = partNote(part);
      if (blobs !== null && note.sha256 !== null) blobs[note.sha256] ??= String(part.data);
      media.push([note.kind, note.mediaType, partLine(note), note.sha256, note.url]);
    }
  }
  return media.length === 0 ? [] : [media];
}

/** Each compaction of the run, where the page needs it to show what the model was shown after it. */
function compactionsOf(trace: RunTrace): ReportData["compactions"] {
  // The run's first messages (the system message, any history, the task) are always shown.
  const head = (trace.entries[0]?.messages.length ?? 1) - 1;
  return trace.entries.flatMap((entry, row) => {
    const { event } = entry;
    if (event.type !== "context.compacted") return [];
    const summary = event.summary === undefined ? null : contentText(summaryMessage(event.summary).content);
    return [[row, head, event.keptFrom, summary] as const];
  });
}

/**
 * An event's description as a row carries it: its template (the description with every run of
 * digits written `0`), added to `descriptions` when new, and the numbers taken out, in order. A
 * number with a leading zero or too long to be one stays text.
 */
function descriptionRow(
  { title, summary }: EventDescription,
  templates: Indexer<string>,
  descriptions: DescriptionTemplate[],
): RowData[4] {
  const numbers: (number | string)[] = [];
  const cut = (text: string): string =>
    text.replace(/\d+/g, (digits) => {
      numbers.push(String(Number(digits)) === digits ? Number(digits) : digits);
      return "0";
    });
  const template: DescriptionTemplate = [
    cut(title),
    summary.map((piece) => (typeof piece === "string" ? cut(piece) : ([piece[0], cut(piece[1])] as const))),
  ];
  const known = templates.size;
  const index = templates.of(JSON.stringify(template));
  if (index === known) descriptions.push(template);
  return [index, ...numbers];
}

function messageData(message: Message): MessageData {
  switch (message.role) {
    case "system":
      return [0, message.content];
    case "user":
      return [1, partsText(message.content)];
    case "assistant":
      return [
        2,
        message.content,
        message.toolCalls.map((call) => [call.name, call.rawArgs ?? JSON.stringify(call.args), call.id] as const),
      ];
    case "tool": {
      return isErrorMessage(message)
        ? [3, partsText(message.content), message.toolCallId, message.name, 1]
        : [3, partsText(message.content), message.toolCallId, message.name];
    }
  }
}

/** One mark per kind per slot of the track, saying how many it stands for. */
function marksOf(notes: ReadonlyMap<number, readonly Note[]>, rows: number): (readonly [number, string, string])[] {
  const slot = Math.max(1, rows / MARK_SLOTS);
  const kept = new Map<string, { at: number; kind: string; text: string; more: number }>();
  for (const [at, list] of [...notes].sort(([a], [b]) => a - b)) {
    for (const note of list) {
      const row = Math.min(at, Math.max(0, rows - 1));
      const key = `${Math.floor(row / slot)} ${note.kind}`;
      const mark = kept.get(key);
      if (mark === undefined) kept.set(key, { at: row, kind: note.kind, text: note.text, more: 0 });
      else mark.more++;
    }
  }
  return [...kept.values()].map(({ at, kind, text, more }) => [
    at,
    kind,
    more === 0 ? text : `${text} (and ${more} more here)`,
  ]);
}

/** Values numbered in the order they are first seen. */
class Indexer<T> {
  readonly #index = new Map<T, number>();

  get size(): number {
    return this.#index.size;
  }

  of(value: T): number {
    let index = this.#index.get(value);
    if (index === undefined) {
      index = this.#index.size;
      this.#index.set(value, index);
    }
    return index;
  }

  values(): T[] {
    return [...this.#index.keys()];
  }
}
