import { type Html, html } from "./html.js";
import type { StudioView, WaitingCall } from "./page-data.js";

const runLink = (runId: string): Html => html`<a href="/runs/${encodeURIComponent(runId)}">${runId}</a>`;

/** A waiting call with its buttons (the studio drives runs) or the flags to give (it does not). */
function decision(call: WaitingCall, canDrive: boolean): Html {
  if (!canDrive) {
    return html`<span class="wait">${call.name} [${call.id}] waits: start the studio with the run's --tools to decide here</span>`;
  }
  return html`<span class="wait">${call.name} [${call.id}] waits: <button type="button" data-act="decide" data-call="${call.id}" data-approved="1">approve</button> <button type="button" data-act="decide" data-call="${call.id}" data-approved="0">deny</button></span>`;
}

/**
 * The studio's bar on a run's page: the way back, the calls of the run's tree that wait (decided
 * here on a root, named with a link to the root on a child), the fork button, the next message's
 * box, what the model streams, the last failure. Drawn by the server and by the page alike.
 */
export function panelHtml(view: StudioView, waiting: readonly WaitingCall[]): Html {
  const { calledBy } = view;
  // A child's calls are decided from the tree's root, which resumes the whole tree: resuming the child alone would leave its parent waiting.
  const fromRoot =
    calledBy !== null && view.open && view.ownWaiting.length > 0
      ? html`<span class="wait">${view.ownWaiting.map(
          (call, index) => html`${index > 0 ? ", " : ""}${call.name} [${call.id}]`,
        )} waits: decide it from ${runLink(calledBy.runId)}, the run whose call started this one</span>`
      : null;
  const decisions = calledBy === null ? waiting.map((call) => decision(call, view.canDrive)) : [];
  const chat = view.canChat
    ? html`<form id="chat"><input id="message" placeholder="your next message" aria-label="your next message" required><button type="submit">send</button></form>`
    : null;
  return html`<a href="/">all runs</a>${fromRoot}${decisions}<button type="button" data-act="fork">fork at the selected event</button>${chat}<span class="streaming" id="streaming"></span><span class="failure" id="failure">${view.failure ?? ""}</span><span class="live">live</span>`;
}
