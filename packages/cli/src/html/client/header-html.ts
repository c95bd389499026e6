import { type Html, html } from "./html.js";
import type { RunHeader } from "./page-data.js";

const line = (id: string, cls: string, name: string, text: string): Html =>
  html`<p class="${cls}" id="${id}"><strong>${name}</strong> ${text}</p>`;

/**
 * The run's header: its id, the outcome badge, the task, the answer, what the checks of its end
 * said (the checked output, the problem of a refused answer, the guardrail that tripped) and the
 * calls and the questions it waits on (with, in the offline report, the command that answers). Drawn by the server, and by the page again as the run goes on.
 */
export function headerHtml(header: RunHeader): Html {
  const waits =
    header.waiting.length === 0
      ? null
      : html`<p class="waits" id="waits"><strong>Waiting</strong> for a decision on ${header.waiting.map(
          (call, index) => html`${index > 0 ? ", " : ""}<code>${call.id}</code> (${call.name})`,
        )}</p>`;
  const questions =
    header.questions.length === 0
      ? null
      : html`<div class="questions" id="questions">${header.questions.map(
          (q) =>
            html`<p class="question"><strong>Question</strong> <code>${q.id}</code>: ${q.question}${
              q.shape === null ? null : html`<br><span class="shape">the answer's shape: <code>${q.shape}</code></span>`
            }</p>`,
        )}${
          header.answerCommand === null
            ? null
            : html`<p class="answer-with"><strong>Answer with</strong> <code id="answer-command">${header.answerCommand}</code></p>`
        }</div>`;
  return html`<h1>Run <code>${header.runId}</code></h1>
<div class="outcome status-${header.status}" id="outcome">${header.outcome}</div>
<p class="task"><strong>Task</strong> ${header.task}</p>
<p class="answer"><strong>Answer</strong> ${header.answer ?? "(none)"}</p>
${header.output === undefined ? null : line("output", "output", "Output", header.output)}${
  header.outputProblem === undefined ? null : line("output-problem", "output", "Output refused", header.outputProblem)
}${header.tripped === undefined ? null : line("tripped", "tripped", "Tripped", header.tripped)}${waits}${questions}`;
}
