import { type Html, html } from "./html.js";

const span = (cls: string, text: string | Html): Html => html`<span class="${cls}">${text}</span>`;
const call = (name: string | number | undefined, id: string | number | undefined): Html =>
  html`${span("tool-name", String(name ?? ""))} [${String(id ?? "")}]`;
const text = (value: string | number | undefined): string => String(value ?? "");

/** What the page writes beside an event's type, from the row's detail (see `detailOf` on the server). */
export function eventDetail(type: string, d: readonly (string | number)[]): Html {
  switch (type) {
    case "run.started":
      return html`${text(d[0])}`;
    case "model.replied":
      return html`step ${text(d[0])} · ${span("tokens", `${text(d[1])} tokens`)} so far (${
        d.length > 2 ? `usage ${text(d[2])} in / ${text(d[3])} out` : "estimated"
      })`;
    case "tool.started":
    case "tool.finished":
      return call(d[0], d[1]);
    case "approval.decided":
      return html`${d[2] ? span("approved", "approved") : span("denied", "denied")} ${call(d[0], d[1])}${
        d.length > 3 ? ` (${text(d[3])})` : ""
      }`;
    case "run.cancelled":
      return span("cancelled", text(d[0]));
    case "run.finished":
      return html`${text(d[0])}`;
    case "user.messaged":
      return span("turn", `turn ${text(d[0])}`);
    case "context.compacted":
    case "retry.waited":
      return span("turn", text(d[0]));
    case "model.failed":
      return span("denied", text(d[0]));
    case "output.checked":
      return d[0] === 1 ? span("approved", text(d[1])) : span("denied", text(d[1]));
    case "guardrail.checked":
      return d[0] === 1 ? span("denied", text(d[1])) : span("approved", text(d[1]));
    case "memory.recalled":
      return span("turn", text(d[0]));
    case "memory.written":
      return html`${call(d[0], d[1])} ${text(d[2])}`;
  }
  // An event type this page does not know yet still shows what the data says of it.
  return html`${d.join(" ")}`;
}
