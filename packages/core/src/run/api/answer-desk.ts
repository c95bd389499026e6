import type { PendingQuestion, ToolCall } from "../../data/index.js";
import { askToolsOf, type ToolRegistry } from "../../tools/index.js";
import { type AnswerPort, checkAnswer } from "../performers/index.js";
import { CallDesk } from "./call-desk.js";

/** An answer as the run takes it: checked, and kept as the value the shape made of it. */
type Given = { readonly answer: unknown };

/** A question waiting: its call, and the question when a running tool asked it (absent: an ask-user tool's call holds it). */
type Asked = { readonly call: ToolCall; readonly asked: PendingQuestion | undefined };

/**
 * Where an embedded run's questions wait for the parent: each question waits here until an answer
 * for its call id comes that fits the question's shape (`answer`), or the parent lets the run pause
 * (`pause`). An answer that does not fit is refused through `refuse`, in one line, and the question
 * waits on. The questions of one reply are announced together through `announce`. An answer that
 * comes before its question is asked (a restored actor re-reads its log first) is kept for it.
 */
export class AnswerDesk {
  readonly #desk: CallDesk<Asked, Given, unknown>;
  readonly #registry: ToolRegistry;

  constructor(
    registry: ToolRegistry,
    readonly announce: (questions: readonly PendingQuestion[]) => void,
    readonly refuse: (callId: string, problem: string) => void,
  ) {
    this.#registry = registry;
    this.#desk = new CallDesk((waiting) => announce(this.#questionsOf(waiting)));
  }

  /** The port the run asks its questions through: it waits for the parent's answer, or gives none once paused. */
  get port(): AnswerPort {
    return async (call, asked) => {
      const early = this.#desk.takeEarly(call.id);
      if (early !== undefined) {
        const taken = await this.#check({ call, asked }, early.value);
        if (taken !== undefined) return taken;
      }
      return this.#desk.wait({ call, asked });
    };
  }

  /** Answers the questions named, each once it is checked; an answer for a question not asked yet is kept until it is. */
  answer(answers: Readonly<Record<string, unknown>>): void {
    for (const [id, answer] of Object.entries(answers)) {
      const waiting = this.#desk.offer(id, answer);
      if (waiting === undefined) continue;
      void this.#check(waiting, answer).then((taken) => {
        if (taken !== undefined) this.#desk.give(waiting, taken);
      });
    }
  }

  /** Leaves every question waiting, now and later, unanswered: the run pauses with `awaiting_input`. */
  pause(): void {
    this.#desk.pause();
  }

  async #check({ call, asked }: Asked, answer: unknown): Promise<Given | undefined> {
    const checked = await checkAnswer(this.#registry, call.name, answer, asked?.schema);
    if (checked.ok) return { answer: checked.value };
    this.refuse(call.id, `the answer to '${call.id}' does not fit: ${checked.problem}`);
    return undefined;
  }

  /** The questions waiting, as the parent is shown them: as asked, or from their tool's call. */
  #questionsOf(waiting: readonly Asked[]): PendingQuestion[] {
    const tools = askToolsOf(this.#registry);
    return waiting.map(({ call, asked }) => {
      if (asked !== undefined) return asked;
      const schema = tools.find((tool) => tool.name === call.name)?.answer;
      const question = { id: call.id, question: String(call.args.question) };
      return schema === undefined ? question : { ...question, schema };
    });
  }
}
