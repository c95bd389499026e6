import { descriptionOf, eventDetail, saysBad } from "./event-detail.js";
import { type Html, html } from "./html.js";
import type { MessageData, Piece, ReportData, RowData } from "./page-data.js";

/** One event of the run, as the conversation shows it; `null` leaves it out of the conversation. */
type Turn = (row: RowData, data: ReportData) => Html | null;

const bubble = (role: string, label: string, body: Html | string, extra: Html | null = null): Html =>
  html`<div class="bubble ${role}"><span class="who">${label}</span><div class="said">${body}</div>${extra}</div>`;

const chip = (kind: string, label: string, body: Html | string): Html =>
  html`<div class="chip ${kind}"><span class="who">${label}</span> ${body}</div>`;

const messagesOf = (row: RowData, role: MessageData[0]): MessageData[] => row[5].filter((m) => m[0] === role);

/** An assistant's reply: its text, and each tool call with its arguments. */
function reply(row: RowData, data: ReportData): Html {
  const said = messagesOf(row, 2).map((message) => {
    const calls = message[0] === 2 ? message[2] : [];
    const text = message[1] === "" ? null : html`<p>${message[1]}</p>`;
    const list =
      calls.length === 0
        ? null
        : html`<ul class="calls">${calls.map(
            ([name, args, id]) =>
              html`<li><span class="tool-name">${name}</span><code class="args">${args}</code> <span class="call-id">[${id}]</span></li>`,
          )}</ul>`;
    return html`${text}${list}`;
  });
  return bubble("assistant", descriptionOf(data, row).title, html`${said}`);
}

/**
 * The row's images and files, each a figure with the line that names it; an image's figure names
 * its bytes by their SHA-256, and `drawPictures` puts the picture in it once the page holds the
 * figure. A URL part shows as its line (a URL is never fetched).
 */
export function mediaHtml(row: RowData): Html | null {
  const media = row[6] ?? [];
  if (media.length === 0) return null;
  return html`<div class="media">${media.map(([kind, mediaType, caption, sha256, url]) => {
    const picture = kind === "image" && sha256 !== null;
    return picture
      ? html`<figure class="part image" data-picture="${sha256}" data-type="${mediaType}"><figcaption>${caption}</figcaption></figure>`
      : html`<figure class="part ${kind}${url === null ? "" : " url"}"><figcaption>${caption}</figcaption></figure>`;
  })}</div>`;
}

/** A tool's result, under the call it answers; the row's images in the last one's bubble. */
function result(row: RowData): Html {
  const results = messagesOf(row, 3);
  return html`${results.map((message, index) =>
    message[0] === 3
      ? bubble(
          `tool${message[4] === 1 ? " error" : ""}`,
          `${message[3]} [${message[2]}]`,
          html`<code class="result">${message[1]}</code>${index === results.length - 1 ? mediaHtml(row) : null}`,
        )
      : null,
  )}`;
}

/** What the user said: the task at the start, each later message. */
function user(label: string): Turn {
  return (row) => {
    const said = messagesOf(row, 1).map((message) => message[1]);
    return said.length === 0
      ? null
      : bubble("user", label, html`${said.map((text) => html`<p>${text}</p>`)}${mediaHtml(row)}`);
  };
}

/** The event as a chip: its title and its description, in the kind of chip `kind` picks from the description. */
const detailChip =
  (kind: (summary: readonly Piece[]) => string): Turn =>
  (row, data) => {
    const { title, summary } = descriptionOf(data, row);
    return chip(kind(summary), title, eventDetail(summary));
  };

/** A verdict's chip: `bad` when its description says something went wrong, `ok` otherwise. */
const verdict = (summary: readonly Piece[]): string => (saysBad(summary) ? "bad" : "ok");

/**
 * How each kind of event reads in the conversation, by event type. A kind of event the run's log
 * gains later gets its line here; one without a line is shown as a chip of its title and description.
 */
export const CONVERSATION: Readonly<Record<string, Turn>> = {
  "run.started": user("task"),
  "user.messaged": user("you"),
  "model.replied": reply,
  "tool.started": () => null,
  "tool.finished": result,
  "approval.decided": detailChip(verdict),
  "guardrail.checked": detailChip(verdict),
  "output.checked": detailChip(verdict),
  "context.compacted": detailChip(() => "info"),
  "memory.recalled": detailChip(() => "info"),
  "memory.written": detailChip(() => "ok"),
  "model.failed": detailChip(() => "bad"),
  "retry.waited": detailChip(() => "info"),
  "run.cancelled": detailChip(() => "bad"),
  "run.finished": detailChip(() => "end"),
  "tool.noted": () => null,
  handoff: detailChip(() => "info"),
};

/** The conversation's entry for row `index`: its turn (or a chip for an unknown type), marked with its index. */
export function conversationEntry(data: ReportData, index: number): Html {
  const row = data.rows[index];
  if (row === undefined) return html``;
  const type = data.types[row[0]] ?? "";
  const turn = CONVERSATION[type] ?? detailChip(() => "info");
  const shown = turn(row, data);
  if (shown === null) return html``;
  return html`<li class="said-entry" data-index="${index}"><span class="seq">#${index}</span>${shown}</li>`;
}
