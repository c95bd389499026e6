/** The data a run's page is drawn from: the report's and the studio's. Types only; shared by the server and the page. */

/** A message as the page gets it: `[0 system | 1 user, text]`, `[2, text, [[name, args, id], ...]]`, `[3, text, id, name, error?]`. */
export type MessageData =
  | readonly [0 | 1, string]
  | readonly [2, string, readonly (readonly [string, string, string])[]]
  | readonly [3, string, string, string]
  | readonly [3, string, string, string, 1];

/**
 * What a piece of an event's description is, for the medium to give it its look: a colour in
 * the terminal, a class on the page. `name` a tool's or an agent's name, `id` a call's id,
 * `good` and `bad` a verdict, `warn` what waits or stopped, `note` what the run did to itself
 * (a turn, a compaction, a retry, a recall), `count` the tokens so far, `aside` the rest of a
 * line said in passing.
 */
export type Tone = "name" | "id" | "good" | "bad" | "warn" | "note" | "count" | "aside";

/** A piece of an event's description: plain text, or text with its tone. */
export type Piece = string | readonly [tone: Tone, text: string];

/** An event's description with its numbers taken out: its title and the pieces written beside its type. */
export type DescriptionTemplate = readonly [title: string, summary: readonly Piece[]];

/**
 * An image or file part of a row's messages: its kind, media type, the line that names it
 * ("image/png, 12 KB, sha256:ab12cd34ef56…"), the SHA-256 of its bytes (by which the page finds
 * them: in `blobs`, or at `blobBase`), or null and the URL it points to (shown, never fetched).
 */
export type MediaData = readonly [
  kind: "image" | "file",
  mediaType: string,
  caption: string,
  sha256: string | null,
  url: string | null,
];

/**
 * One event as the page gets it: its type (an index in `EVENT_TYPES`), its time from the run's
 * start (already formatted), the state it left the machine in and the moves it made (indexes in
 * `states` and `moves`), its description (`describeEvent`'s, as the index of its template in
 * `descriptions` and the numbers that fill it), and the messages it added. Its
 * `seq` is its place in the list.
 */
export type RowData = readonly [
  type: number,
  offset: string,
  state: number,
  moves: number,
  description: readonly [template: number, ...numbers: (number | string)[]],
  messages: readonly MessageData[],
  media?: readonly MediaData[],
];

/** Everything the report's script needs, as compact as plain JSON allows: the page renders the rows it shows. */
export interface ReportData {
  readonly chartId: string;
  /** `EVENT_TYPES`, for the rows' type numbers. */
  readonly types: readonly string[];
  /** Chart ids (states and transitions) the rows refer to. */
  readonly ids: readonly string[];
  /** Distinct move sequences: their HTML, and the ids they light on the chart. */
  readonly moves: readonly (readonly [text: string, lit: readonly number[]])[];
  /**
   * Distinct descriptions of events, each with every run of digits written as one `0`: a row names
   * its template and gives the numbers, in order (title first), so that 10,000 steps share one.
   */
  readonly descriptions: readonly DescriptionTemplate[];
  readonly rows: readonly RowData[];
  /** Notes before a row, by its index (`rows.length` for the end): `[kind, text]`. */
  readonly notes: Readonly<Record<number, readonly (readonly [string, string])[]>>;
  /** Marks on the slider's track: `[row, kind, text]`, at most a few hundred whatever the run's length. */
  readonly marks: readonly (readonly [number, string, string])[];
  /** Rows the page shows at once. */
  readonly window: number;
  /**
   * The compactions, for what the model was shown: `[row, head, keptFrom, summary]`, where the
   * messages after `head` (the task) and before `keptFrom` were hidden from that row on, and the
   * summary message (null with `trim`) stood for them.
   */
  readonly compactions: readonly (readonly [row: number, head: number, keptFrom: number, summary: string | null])[];
  /** The bytes of the parts' images, base64 by SHA-256, once each (the offline report); absent when the page fetches them. */
  readonly blobs?: Readonly<Record<string, string>>;
  /** Where the page fetches a part's bytes, the SHA-256 appended (the studio's `/runs/:id/blobs/`). */
  readonly blobBase?: string;
}

/** A call a run (or its tree) waits on: its id (chained under a child's call) and the tool's name. */
export interface WaitingCall {
  readonly id: string;
  readonly name: string;
}

/** What the run's header says, as data: the page draws it, and draws it again as the run goes on. */
export interface RunHeader {
  readonly runId: string;
  /** The view status (`done`, `awaiting_approval`, ...), for the badge's colour. */
  readonly status: string;
  /** `status · steps · tokens · events`, and turns and the state of a run not ended. */
  readonly outcome: string;
  readonly task: string;
  readonly answer: string | null;
  /** The checked output, as JSON. */
  readonly output?: string;
  /** The problem of the answer the output check refused last. */
  readonly outputProblem?: string;
  /** The guardrail that tripped: `stage guardrail name: reason`. */
  readonly tripped?: string;
  readonly waiting: readonly WaitingCall[];
  /** The questions the run's tree waits on an answer for (chained ids for a child's). */
  readonly questions: readonly QuestionData[];
  /** The offline report's line that goes on with an answer for each question, to paste and fill in; `null` in the studio, which answers on the page. */
  readonly answerCommand: string | null;
}

/** A question the run waits on: the call's id, the question, and the answer's shape (its JSON Schema, as text) when the tool gives one. */
export interface QuestionData {
  readonly id: string;
  readonly question: string;
  readonly shape: string | null;
}

/** A child run of an agent tool call, as the page lists it: a link in the studio, a command in the offline report. */
export interface ChildData {
  readonly callId: string;
  readonly name: string;
  readonly runId: string;
  readonly status: string;
  readonly steps: number;
  readonly tokens: number;
  readonly task: string;
  readonly answer: string | null;
  /** The command that writes its report (the offline page), or `null` in the studio, where it is a link. */
  readonly command: string | null;
  readonly children: readonly ChildData[];
}

/** What the page has of the run: how many rows, chart ids, moves and descriptions. */
export interface Known {
  readonly rows: number;
  readonly ids: number;
  readonly moves: number;
  readonly descriptions: number;
}

/**
 * What changed in a run since the page last looked, as the studio sends it: the rows, chart ids,
 * moves and descriptions past the ones the page has (`from`), the notes, marks and compactions whole (they are
 * small), the header, the chart's counts and the child runs.
 */
export interface RunUpdate {
  /** What the page now shows, as the studio names it: asked again with it, the studio answers 204 until the run changes. */
  readonly version: string;
  readonly from: Known;
  readonly rows: ReportData["rows"];
  readonly ids: ReportData["ids"];
  readonly moves: ReportData["moves"];
  readonly descriptions: ReportData["descriptions"];
  readonly notes: ReportData["notes"];
  readonly marks: ReportData["marks"];
  readonly compactions: ReportData["compactions"];
  readonly header: RunHeader;
  /** Times each state was entered and each transition taken, by chart id; the state the run is in. */
  readonly visits: Readonly<Record<string, number>>;
  readonly taken: Readonly<Record<string, number>>;
  readonly end: string;
  readonly children: readonly ChildData[];
  /** The studio's own view: whether it drives runs, the run's last failure there, its caller. */
  readonly studio: StudioView;
}

/** What the studio's bar shows besides the run. */
export interface StudioView {
  readonly canDrive: boolean;
  readonly canChat: boolean;
  readonly failure: string | null;
  readonly calledBy: { readonly runId: string; readonly callId: string } | null;
  /** Whether the run has not ended, for a child whose calls are decided from its parent. */
  readonly open: boolean;
  /** A child's own waiting calls, their ids chained under its caller's call (`r1/e1`). */
  readonly ownWaiting: readonly WaitingCall[];
  /** A child's own waiting questions, their ids chained the same way: they are answered from the root. */
  readonly ownQuestions: readonly string[];
}
