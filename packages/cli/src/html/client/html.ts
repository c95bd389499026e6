/**
 * HTML built with one tagged template, on the server and in the page alike: every interpolation is
 * escaped unless it is `Html` already (another template's result, or text marked `raw`). Arrays are
 * joined; `null`, `undefined` and `false` write nothing. This module uses no DOM and no Node API.
 */
export class Html {
  constructor(readonly text: string) {}

  toString(): string {
    return this.text;
  }
}

const ENTITIES: Readonly<Record<string, string>> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};

/** Text made safe for HTML and SVG text and attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => ENTITIES[char] ?? char);
}

/** What an interpolation may be: text and numbers are escaped, `Html` is kept, lists are joined. */
export type HtmlValue = Html | string | number | boolean | null | undefined | readonly HtmlValue[];

/** Markup written as it is: only for text that is HTML already (made by `html`, or a trusted constant). */
export function raw(text: string): Html {
  return new Html(text);
}

function valueText(value: HtmlValue): string {
  if (value instanceof Html) return value.text;
  if (Array.isArray(value)) return (value as readonly HtmlValue[]).map(valueText).join("");
  if (value === null || value === undefined || value === false) return "";
  return escapeHtml(String(value));
}

/** The tagged template: `` html`<b>${name}</b>` `` escapes `name`. */
export function html(strings: TemplateStringsArray, ...values: readonly HtmlValue[]): Html {
  let text = strings[0] ?? "";
  for (let index = 0; index < values.length; index++) {
    text += valueText(values[index]) + (strings[index + 1] ?? "");
  }
  return new Html(text);
}
