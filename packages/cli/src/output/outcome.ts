import { stateName } from "../chart/statechart.js";
import type { AgentResult, PendingQuestion, ToolCall } from "../core-api.js";
import type { Io } from "../io.js";
import { traceStatus } from "../trace/run-status.js";
import type { RunTrace } from "../trace/run-trace.js";
import type { Palette } from "./colors.js";
import { commandLine, type ModelFlags } from "./hints.js";

/** The closing lines of a finished run: status, steps, tokens, the answer, its checked value and the guardrail that tripped. */
export function formatOutcome(result: AgentResult, colors: Palette): string[] {
  const status = result.status === "done" ? colors.green(result.status) : colors.yellow(result.status);
  const over =
    result.tokensOverBudget === undefined ? "" : colors.yellow(` (${result.tokensOverBudget} over the budget)`);
  const lines = [
    `${colors.bold("result")}   ${status} · steps ${result.steps} · tokens ${result.tokens}${over} · messages ${result.messages.length}`,
    `${colors.bold("answer")}   ${result.answer ?? colors.dim("(none)")}`,
  ];
  if (result.cost !== undefined) {
    const past =
      result.costOverBudget === undefined
        ? ""
        : colors.yellow(` (${formatUsd(result.costOverBudget)} over the budget)`);
    lines.push(`${colors.bold("cost")}     ${formatUsd(result.cost)}${past}`);
  }
  if (result.unpriced !== undefined) {
    lines.push(`${colors.bold("cost")}     ${colors.yellow(`unknown: no price for ${result.unpriced.join(", ")}`)}`);
  }
  if (result.output !== undefined) lines.push(`${colors.bold("output")}   ${JSON.stringify(result.output)}`);
  if (result.guardrail !== undefined) {
    const { stage, name, reason } = result.guardrail;
    lines.push(`${colors.bold("tripped")}  ${stage} guardrail ${name}: ${reason}`);
  }
  const last = result.messages.at(-1);
  if (result.status === "refused" && last?.role === "assistant") {
    lines.push(`${colors.bold("refusal")}  ${last.content === "" ? colors.dim("(no words)") : last.content}`);
  }
  return lines;
}

/** USD as people read it: cents for a dollar or more, else four significant digits. */
export function formatUsd(usd: number): string {
  if (usd >= 1) return `$${usd.toFixed(2)}`;
  if (usd === 0) return "$0";
  return `$${Number(usd.toPrecision(4))}`;
}

/** How to go on with a run: its log, and the tool-source and model flags to resume it with (placeholders when unknown). */
export interface ResumeWith {
  readonly log: string;
  readonly tools?: readonly string[];
  readonly model?: ModelFlags;
}

/** The command that resumes a run, with decisions for `waiting` calls (approving them, or denying them). */
export function resumeCommand(
  io: Io,
  how: ResumeWith,
  decide: "approve" | "deny" | null,
  waiting: readonly ToolCall[],
): string {
  const tools = how.tools === undefined || how.tools.length === 0 ? ["--tools", "<module>"] : how.tools;
  const model = how.model === undefined || how.model.length === 0 ? ["--model", "<provider:name>"] : how.model;
  const decisions = decide === null ? [] : waiting.flatMap((call) => [`--${decide}`, call.id]);
  return commandLine(io, ["resume", how.log, ...tools, ...model, ...decisions]);
}

/**
 * For a run paused for answers: each question, the shape its answer must have, and the command
 * that goes on with an answer for each (`--answer <callId>=<answer>`, the answer as JSON, or as
 * text when it is not JSON) to paste and fill in.
 */
export function questionLines(
  io: Io,
  colors: Palette,
  how: ResumeWith,
  questions: readonly PendingQuestion[],
): string[] {
  if (questions.length === 0) return [];
  const lines = questions.flatMap((question) => [
    `${colors.bold("question")} ${question.id}: ${question.question}`,
    ...(question.schema === undefined ? [] : [`${colors.dim("shape")}    ${JSON.stringify(question.schema)}`]),
  ]);
  const tools = how.tools === undefined || how.tools.length === 0 ? ["--tools", "<module>"] : how.tools;
  const model = how.model === undefined || how.model.length === 0 ? ["--model", "<provider:name>"] : how.model;
  const answers = questions.flatMap((question) => ["--answer", `${question.id}=<answer>`]);
  return [
    ...lines,
    `${colors.dim("answer")}   ${commandLine(io, ["resume", how.log, ...tools, ...model, ...answers])}`,
  ];
}

/** For a run paused for a decision: which calls wait, and the commands that go on (approving or denying them). */
export function waitingLines(io: Io, colors: Palette, how: ResumeWith, waiting: readonly ToolCall[]): string[] {
  if (waiting.length === 0) return [];
  const ids = waiting.map((call) => `${call.id} (${call.name})`).join(", ");
  return [
    `${colors.bold("waiting")}  for a decision on ${ids}`,
    `${colors.dim("approve")}  ${resumeCommand(io, how, "approve", waiting)}`,
    `${colors.dim("deny")}     ${resumeCommand(io, how, "deny", waiting)}`,
  ];
}

/** What a log that has not reached a final state means, and how to go on (`waiting`: the calls of its tree that wait). */
export function unfinishedNote(
  trace: RunTrace,
  colors: Palette,
  io: Io,
  how: ResumeWith,
  waiting: readonly ToolCall[] = trace.waiting,
): string[] {
  const state = stateName(trace.chart, trace.state);
  const status = traceStatus(trace, waiting);
  const head = `${colors.bold("result")}   ${colors.yellow(status)} · in ${state} · steps ${trace.steps} · tokens ${trace.tokens}`;
  if (waiting.length > 0 || trace.questions.length > 0) {
    return [head, ...waitingLines(io, colors, how, waiting), ...questionLines(io, colors, how, trace.questions)];
  }
  const { last } = trace;
  const why =
    status === "model_failed" && last?.type === "model.failed"
      ? `the run gave up on its model (${last.error}), with no retry or fallback model left; resuming asks it again`
      : "the log ends before the run did: it was interrupted, or it is still going";
  return [head, `${colors.dim(why)}`, `${colors.dim("resume")}   ${resumeCommand(io, how, null, [])}`];
}
