import { type Html, html } from "./html.js";
import type { Piece, ReportData, RowData, Tone } from "./page-data.js";

/** Each tone's class on the page (`null`: plain text). */
const TONE_CLASSES: Readonly<Record<Tone, string | null>> = {
  name: "tool-name",
  id: "call-id",
  good: "approved",
  bad: "denied",
  warn: "waiting",
  note: "turn",
  count: "tokens",
  aside: null,
};

/** An event's description on the page, each piece in its tone's class (`describeEvent` on the server says it). */
export function eventDetail(summary: readonly Piece[]): Html {
  return html`${summary.map((piece) => {
    if (typeof piece === "string") return piece;
    const cls = TONE_CLASSES[piece[0]];
    return cls === null ? piece[1] : html`<span class="${cls}">${piece[1]}</span>`;
  })}`;
}

/** Whether a description says something went wrong: a piece in the `bad` tone. */
export function saysBad(summary: readonly Piece[]): boolean {
  return summary.some((piece) => typeof piece !== "string" && piece[0] === "bad");
}

/** A row's description, its template's `0`s filled with the row's numbers in order (`descriptionRow` on the server). */
export function descriptionOf(data: ReportData, row: RowData): { title: string; summary: Piece[] } {
  const [index, ...numbers] = row[4];
  const [title, summary] = data.descriptions[index] ?? ["", []];
  let next = 0;
  const fill = (text: string): string => text.replace(/0/g, () => String(numbers[next++] ?? ""));
  return {
    title: fill(title),
    summary: summary.map((piece) => (typeof piece === "string" ? fill(piece) : [piece[0], fill(piece[1])])),
  };
}
