import { childRunsHtml } from "./children-html.js";
import { conversationEntry } from "./conversation.js";
import { descriptionOf, eventDetail } from "./event-detail.js";
import { headerHtml } from "./header-html.js";
import { type Html, html, raw } from "./html.js";
import type { MessageData, ReportData, RowData, RunUpdate } from "./page-data.js";
import { shownAt } from "./prompt.js";

const ROLES = ["system", "user", "assistant", "tool"] as const;
/** Messages "what the model was shown" lists from the start and from the end of a long list. */
const PROMPT_HEAD = 4;
const PROMPT_TAIL = 30;
/** Events the conversation shows around the selected one (fewer than the timeline: its entries are larger). */
const CONVERSATION_BEFORE = 20;
const CONVERSATION_AFTER = 10;

/** The element of the page with this id, of this type; the page is made with every one of them. */
export function byId<T extends HTMLElement>(id: string): T {
  const element = document.getElementById(id);
  if (element === null) throw new Error(`the page has no #${id}`);
  return element as T;
}

const span = (cls: string, text: string | Html): Html => html`<span class="${cls}">${text}</span>`;

/** A message as the timeline shows it under its event. */
function timelineMessage(m: MessageData): Html {
  const role = (name: string) => span("role", name);
  if (m[0] === 0 || m[0] === 1) {
    const name = m[0] === 0 ? "system" : "user";
    return html`<div class="msg ${name}">${role(name)}${span("text", m[1])}</div>`;
  }
  if (m[0] === 2) {
    const calls = m[2].map((c) =>
      span("call", html`${span("tool-name", c[0])}(${c[1]}) ${span("call-id", `[${c[2]}]`)}`),
    );
    return html`<div class="msg assistant">${role("assistant")}${m[1] === "" ? null : span("text", m[1])}${calls}</div>`;
  }
  return html`<div class="msg tool${m[4] === 1 ? " error" : ""}">${role("tool")}${span("call-id", `[${m[2]}]`)} ${span("tool-name", m[3] ?? "")} = ${span("text", m[1])}</div>`;
}

/** A message as "what the model was shown" lists it. */
function promptMessage(m: MessageData): Html {
  const text = m[1].length > 400 ? `${m[1].slice(0, 400)}…` : m[1];
  const calls = m[0] === 2 && m[2].length > 0 ? html` <i>${m[2].map((c) => `${c[0]}(${c[1]})`).join(", ")}</i>` : null;
  return html`<li class="msg ${ROLES[m[0]]}"><b>${ROLES[m[0]]}</b> ${m[0] === 3 ? `[${m[2]}] ` : ""}${text}${calls}</li>`;
}

/**
 * The run's page in the browser, drawn from its data: the slider selects an event (the last one
 * when the page opens); the conversation and the timeline show a window of events around it; the
 * states and transitions it touched light up on the chart; "what the model was shown" lists the
 * messages of the model call at or before it. `fold` takes what the studio sends as the run goes
 * on. When drawn it sets `data-ready` on the body.
 */
export class ReportView {
  readonly data: {
    -readonly [K in keyof ReportData]: K extends "rows" | "ids" | "moves" | "descriptions"
      ? ReportData[K][number][]
      : ReportData[K];
  };
  readonly #byId = new Map<string, Element[]>();
  readonly #slider = byId<HTMLInputElement>("step");
  readonly #timeline = byId<HTMLOListElement>("timeline");
  readonly #conversation = byId<HTMLOListElement>("conversation");
  #lit: Element[] = [];
  #stale = false;
  #start = -1;
  #selected = 0;
  /** The events the conversation shows: `[from, to)`. */
  #said: readonly [number, number] = [0, 0];

  constructor(data: ReportData) {
    this.data = {
      ...data,
      rows: [...data.rows],
      ids: [...data.ids],
      moves: [...data.moves],
      descriptions: [...data.descriptions],
    };
    this.#findChart();
    this.#slider.addEventListener("input", () => this.select(Number(this.#slider.value), true));
    for (const list of [this.#timeline, this.#conversation]) {
      list.addEventListener("click", (event) => {
        const item = (event.target as Element).closest<HTMLElement>("[data-index]");
        if (item) this.select(Number(item.dataset.index), false);
      });
    }
    byId("earlier").addEventListener("click", () => this.#page(-1));
    byId("later").addEventListener("click", () => this.#page(1));
    this.#drawMarks();
    this.select(Math.max(0, this.data.rows.length - 1), true);
    document.body.dataset.ready = "true";
  }

  /** Whether the run entered a state the chart has no count for: its layout has no room for one, so it is drawn again. */
  get chartStale(): boolean {
    return this.#stale;
  }

  /** Puts the chart drawn again (by the studio, with the run's counts) in place of the one the page has. */
  replaceChart(svg: string): void {
    // The chart is the studio's own SVG, made from the machine's names and escaped there.
    byId("chart-place").innerHTML = svg;
    this.#findChart();
    this.#stale = false;
    this.#lit = [];
    this.select(this.#selected, false);
  }

  #findChart(): void {
    this.#byId.clear();
    for (const element of document.querySelectorAll<SVGElement>("svg.chart [data-id]")) {
      const id = element.dataset.id ?? "";
      this.#byId.set(id, [...(this.#byId.get(id) ?? []), element]);
    }
  }

  /** The selected event's index. */
  get selected(): number {
    return this.#selected;
  }

  /** Whether the last event is selected: a page that follows the run stays on it. */
  get atEnd(): boolean {
    return this.#selected >= this.data.rows.length - 1;
  }

  /** Selects event `index`: lights the chart, moves the windows to it, fills "what the model was shown". */
  select(index: number, scroll: boolean): void {
    const { data } = this;
    const row = data.rows[index];
    if (row === undefined) return;
    this.#selected = index;
    for (const element of this.#lit) element.classList.remove("focus");
    this.#lit = [];
    for (const lit of data.moves[row[3]]?.[1] ?? []) {
      for (const element of this.#byId.get(data.ids[lit] ?? "") ?? []) {
        element.classList.add("focus");
        this.#lit.push(element);
      }
    }
    byId("step-label").textContent =
      `#${index} ${data.types[row[0]]} · +${row[1]} · ${this.#stateName(data.ids[row[2]] ?? "")}`;
    this.#slider.value = String(index);
    if (this.#start < 0 || index < this.#start || index >= this.#start + data.window)
      this.#render(index - Math.floor(data.window / 2));
    if (index < this.#said[0] || index >= this.#said[1]) this.#renderConversation(index);
    for (const list of [this.#timeline, this.#conversation]) {
      for (const current of list.querySelectorAll(".current")) current.classList.remove("current");
      const item = list.querySelector<HTMLElement>(`[data-index="${index}"]`);
      if (item === null) continue;
      item.classList.add("current");
      if (scroll) list.scrollTop = item.offsetTop - list.offsetTop - list.clientHeight / 3;
    }
    this.#prompt();
  }

  /** Takes what the studio sent: new rows and what goes with them; the page stays on the last event if it was there. */
  fold(update: RunUpdate): void {
    const { data } = this;
    const follow = this.atEnd;
    data.rows.length = Math.min(data.rows.length, update.from.rows);
    data.ids.length = Math.min(data.ids.length, update.from.ids);
    data.moves.length = Math.min(data.moves.length, update.from.moves);
    data.descriptions.length = Math.min(data.descriptions.length, update.from.descriptions);
    data.rows.push(...update.rows);
    data.ids.push(...update.ids);
    data.moves.push(...update.moves);
    data.descriptions.push(...update.descriptions);
    data.notes = update.notes;
    data.marks = update.marks;
    data.compactions = update.compactions;
    byId("header").innerHTML = headerHtml(update.header).text;
    byId("events-count").textContent = `${data.rows.length} events`;
    byId("children-place").innerHTML = childRunsHtml(update.children).text;
    this.#slider.max = String(Math.max(0, data.rows.length - 1));
    this.#chart(update);
    this.#drawMarks();
    const index = follow ? data.rows.length - 1 : Math.min(this.#selected, data.rows.length - 1);
    this.#start = -1;
    this.select(Math.max(0, index), follow);
  }

  #stateName(id: string): string {
    const prefix = `${this.data.chartId}.`;
    return id.startsWith(prefix) ? id.slice(prefix.length) : id;
  }

  #chart(update: RunUpdate): void {
    for (const [id, elements] of this.#byId) {
      for (const element of elements) {
        const state = element.classList.contains("state");
        if (state) {
          element.classList.toggle("visited", (update.visits[id] ?? 0) > 0);
          element.classList.toggle("end", id === update.end);
          const count = element.querySelector(":scope > text.count");
          const visits = update.visits[id];
          if (visits === undefined) continue;
          if (count === null) this.#stale = true;
          else count.textContent = `entered ×${visits}`;
        } else {
          element.classList.toggle("taken", (update.taken[id] ?? 0) > 0);
        }
      }
    }
  }

  #page(direction: number): void {
    this.#render(this.#start + direction * this.data.window);
    this.#timeline.scrollTop = 0;
    this.#conversation.scrollTop = 0;
  }

  #notes(index: number): Html {
    return html`${(this.data.notes[index] ?? []).map(([kind, text]) => html`<li class="note ${kind}">${text}</li>`)}`;
  }

  #entry(index: number, row: RowData): Html {
    const { data } = this;
    const type = data.types[row[0]] ?? "";
    const error = row[5].some((m) => m[0] === 3 && m[4] === 1);
    const moves = data.moves[row[3]]?.[0] ?? "";
    return html`${this.#notes(index)}<li class="entry type-${type.replace(".", "-")}${error ? " has-error" : ""}" data-index="${index}"><div class="head">${span("time", `+${row[1]}`)}${span("seq", `#${index}`)}${span("type", type)}${span("detail", eventDetail(descriptionOf(data, row).summary))}</div>${row[5].map(timelineMessage)}${
      // The moves are HTML the server made from the chart's names, escaped there.
      moves === "" ? null : html`<div class="moves">${raw(moves)}</div>`
    }</li>`;
  }

  #render(from: number): void {
    const { data } = this;
    const rows = data.rows.length;
    this.#start = Math.max(0, Math.min(from, Math.max(0, rows - data.window)));
    const end = Math.min(rows, this.#start + data.window);
    const timeline: Html[] = [];
    for (let index = this.#start; index < end; index++) {
      const row = data.rows[index];
      if (row !== undefined) timeline.push(this.#entry(index, row));
    }
    if (end === rows) timeline.push(this.#notes(rows));
    this.#timeline.innerHTML = html`${timeline}`.text;
    const selected = this.#selected;
    this.#renderConversation(selected >= this.#start && selected < end ? selected : this.#start + CONVERSATION_BEFORE);
    byId("shown").textContent = rows === 0 ? "" : `events ${this.#start + 1}–${end} of ${rows}`;
    byId<HTMLButtonElement>("earlier").disabled = this.#start === 0;
    byId<HTMLButtonElement>("later").disabled = end >= rows;
  }

  /** The conversation around event `index`: what led to it and what came next. */
  #renderConversation(index: number): void {
    const { data } = this;
    const rows = data.rows.length;
    const from = Math.max(0, Math.min(index - CONVERSATION_BEFORE, rows - CONVERSATION_BEFORE - CONVERSATION_AFTER));
    const to = Math.min(rows, from + CONVERSATION_BEFORE + CONVERSATION_AFTER);
    this.#said = [from, to];
    const said: Html[] = [];
    for (let at = from; at < to; at++) said.push(conversationEntry(data, at));
    if (to === rows) said.push(this.#notes(rows));
    this.#conversation.innerHTML = html`${said}`.text;
    drawPictures(this.#conversation, data);
  }

  #prompt(): void {
    const shown = shownAt(this.data, this.#selected);
    byId("prompt-note").textContent = shown.note;
    const { messages } = shown;
    // A long run's call was shown thousands of messages: the first ones and the last ones are listed, so that the page stays small.
    const listed =
      messages.length <= PROMPT_HEAD + PROMPT_TAIL + 1
        ? messages.map(promptMessage)
        : [
            ...messages.slice(0, PROMPT_HEAD).map(promptMessage),
            html`<li class="gap">… ${messages.length - PROMPT_HEAD - PROMPT_TAIL} more messages …</li>`,
            ...messages.slice(-PROMPT_TAIL).map(promptMessage),
          ];
    byId("prompt").innerHTML = html`${listed}`.text;
  }

  #drawMarks(): void {
    const marks = byId("marks");
    marks.replaceChildren();
    const last = Math.max(1, this.data.rows.length - 1);
    for (const [at, kind, text] of this.data.marks) {
      const tick = document.createElement("button");
      tick.type = "button";
      tick.className = `mark ${kind}`;
      tick.style.left = `${(100 * at) / last}%`;
      tick.title = text;
      tick.tabIndex = -1;
      tick.addEventListener("click", () => this.select(at, true));
      marks.append(tick);
    }
  }
}

/** The page's data, from its JSON script element. */
export function pageData(): ReportData {
  return JSON.parse(byId("run-data").textContent ?? "{}") as ReportData;
}

/**
 * Puts each image's picture in its figure: from its bytes the page holds once (the offline
 * report), or from the studio's blob route, which the browser keeps.
 */
function drawPictures(root: HTMLElement, data: ReportData): void {
  for (const figure of root.querySelectorAll<HTMLElement>("figure[data-picture]")) {
    const sha256 = figure.dataset.picture ?? "";
    const kept = data.blobs?.[sha256];
    const source =
      kept !== undefined
        ? `data:${figure.dataset.type ?? "image/png"};base64,${kept}`
        : data.blobBase === undefined
          ? null
          : `${data.blobBase}${sha256}`;
    if (source === null) continue;
    const picture = document.createElement("img");
    picture.alt = figure.textContent ?? "";
    picture.loading = "lazy";
    picture.src = source;
    figure.prepend(picture);
  }
}
