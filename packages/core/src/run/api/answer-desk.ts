import type { PendingQuestion, ToolCall } from "../../data/index.js";
import { askToolsOf, type ToolRegistry } from "../../tools/index.js";
import { type AnswerPort, checkAnswer } from "../performers/index.js";

/** An answer as the run takes it: checked, and kept as the value the shape made of it. */
type Given = { readonly answer: unknown };

/**
 * Where an embedded run's questions wait for the parent: each question waits here until an answer
 * for its call id comes that fits the question's shape (`answer`), or the parent lets the run pause
 * (`pause`). An answer that does not fit is refused through `refuse`, in one line, and the question
 * waits on. The questions of one reply are announced together through `announce`. An answer that
 * comes before its question is asked (a restored actor re-reads its log first) is kept for it.
 */
export class AnswerDesk {
  readonly #waiting = new Map<
    string,
    { readonly call: ToolCall; readonly asked: PendingQuestion | undefined; readonly give: (given?: Given) => void }
  >();
  readonly #early = new Map<string, unknown>();
  readonly #registry: ToolRegistry;
  #paused = false;
  #announcing = false;

  constructor(
    registry: ToolRegistry,
    readonly announce: (questions: readonly PendingQuestion[]) => void,
    readonly refuse: (callId: string, problem: string) => void,
  ) {
    this.#registry = registry;
  }

  /** The port the run asks its questions through: it waits for the parent's answer, or gives none once paused. */
  get port(): AnswerPort {
    return async (call, asked) => {
      if (this.#early.has(call.id)) {
        const early = this.#early.get(call.id);
        this.#early.delete(call.id);
        const taken = await this.#check(call, asked, early);
        if (taken !== undefined) return taken;
      }
      if (this.#paused) return undefined;
      return new Promise<Given | undefined>((give) => {
        this.#waiting.set(call.id, { call, asked, give });
        this.#announceSoon();
      });
    };
  }

  /** Answers the questions named, each once it is checked; an answer for a question not asked yet is kept until it is. */
  answer(answers: Readonly<Record<string, unknown>>): void {
    for (const [id, answer] of Object.entries(answers)) {
      const waiting = this.#waiting.get(id);
      if (waiting === undefined) {
        this.#early.set(id, answer);
        continue;
      }
      void this.#check(waiting.call, waiting.asked, answer).then((taken) => {
        if (taken === undefined || this.#waiting.get(id) !== waiting) return;
        this.#waiting.delete(id);
        waiting.give(taken);
      });
    }
  }

  /** Leaves every question waiting, now and later, unanswered: the run pauses with `awaiting_input`. */
  pause(): void {
    this.#paused = true;
    for (const { give } of this.#waiting.values()) give(undefined);
    this.#waiting.clear();
  }

  async #check(call: ToolCall, asked: PendingQuestion | undefined, answer: unknown): Promise<Given | undefined> {
    const checked = await checkAnswer(this.#registry, call.name, answer, asked?.schema);
    if (checked.ok) return { answer: checked.value };
    this.refuse(call.id, `the answer to '${call.id}' does not fit: ${checked.problem}`);
    return undefined;
  }

  /** The questions of one reply are asked in one go: they are announced together, after it. */
  #announceSoon(): void {
    if (this.#announcing) return;
    this.#announcing = true;
    queueMicrotask(() => {
      this.#announcing = false;
      if (this.#waiting.size === 0) return;
      const tools = askToolsOf(this.#registry);
      this.announce(
        [...this.#waiting.values()].map(({ call, asked }) => {
          if (asked !== undefined) return asked;
          const schema = tools.find((tool) => tool.name === call.name)?.answer;
          const question = { id: call.id, question: String(call.args.question) };
          return schema === undefined ? question : { ...question, schema };
        }),
      );
    });
  }
}
