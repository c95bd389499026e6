import { type Html, html } from "./html.js";
import type { QuestionData, StudioView, WaitingCall } from "./page-data.js";

const runLink = (runId: string): Html => html`<a href="/runs/${encodeURIComponent(runId)}">${runId}</a>`;

/** A waiting call with its buttons (the studio drives runs) or the flags to give (it does not). */
function decision(call: WaitingCall, canDrive: boolean): Html {
  if (!canDrive) {
    return html`<span class="wait">${call.name} [${call.id}] waits: start the studio with the run's --tools to decide here</span>`;
  }
  return html`<span class="wait">${call.name} [${call.id}] waits: <button type="button" data-act="decide" data-call="${call.id}" data-approved="1">approve</button> <button type="button" data-act="decide" data-call="${call.id}" data-approved="0">deny</button></span>`;
}

/** A waiting question with its answer box (the studio drives runs) or the flags to give (it does not). */
function answerBox(question: QuestionData, canDrive: boolean): Html {
  if (!canDrive) {
    return html`<span class="wait">question [${question.id}] waits: start the studio with the run's --tools to answer here</span>`;
  }
  const label = `your answer to ${question.id}: ${question.question}`;
  return html`<form class="wait answer" data-call="${question.id}"><label for="answer-${question.id}">answer [${question.id}]</label> <input id="answer-${question.id}" name="answer" aria-label="${label}" title="${label}" placeholder="${question.shape === null ? "your answer" : "your answer, as JSON"}" required> <button type="submit">answer</button></form>`;
}

/**
 * The studio's bar on a run's page: the way back, the calls of the run's tree that wait (decided
 * here on a root, named with a link to the root on a child), the fork button, the next message's
 * box, what the model streams, the last failure. Drawn by the server and by the page alike.
 */
export function panelHtml(
  view: StudioView,
  waiting: readonly WaitingCall[],
  questions: readonly QuestionData[] = [],
): Html {
  const { calledBy } = view;
  // A child's calls are decided from the tree's root, which resumes the whole tree: resuming the child alone would leave its parent waiting.
  const fromRoot =
    calledBy !== null && view.open && view.ownWaiting.length > 0
      ? html`<span class="wait">${view.ownWaiting.map(
          (call, index) => html`${index > 0 ? ", " : ""}${call.name} [${call.id}]`,
        )} waits: decide it from ${runLink(calledBy.runId)}, the run whose call started this one</span>`
      : null;
  const askedHere =
    calledBy !== null && view.open && view.ownQuestions.length > 0
      ? html`<span class="wait">question ${view.ownQuestions.map(
          (id, index) => html`${index > 0 ? ", " : ""}[${id}]`,
        )} waits: answer it from ${runLink(calledBy.runId)}, the run whose call started this one</span>`
      : null;
  const decisions = calledBy === null ? waiting.map((call) => decision(call, view.canDrive)) : [];
  const answers = calledBy === null ? questions.map((question) => answerBox(question, view.canDrive)) : [];
  const chat = view.canChat
    ? html`<form id="chat"><input id="message" placeholder="your next message" aria-label="your next message" required><button type="submit">send</button></form>`
    : null;
  return html`<a href="/">all runs</a>${fromRoot}${askedHere}${decisions}${answers}<button type="button" data-act="fork">fork at the selected event</button>${chat}<span class="streaming" id="streaming"></span><span class="failure" id="failure">${view.failure ?? ""}</span><span class="live">live</span>`;
}
