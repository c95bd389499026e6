import type { MessageContent, ToolAsked, ToolCall } from "../../data/index.js";
import { copyJson, describeThrown, isPlainObject } from "../../data/index.js";
import { compileParameters, type ToolAsk } from "../../tools/index.js";

/**
 * One attempt of a call, as its tool's `ask` sees it: the answers the call was given for the
 * questions it asked before, taken in order; a question past them ends the attempt (its signal
 * aborts, `ask` never settles) and is what the attempt came to (`asked`). A server's request
 * cannot outlive the process, so a question is never answered in the attempt that asked it: the
 * call is made again, with the answer at hand.
 */
export class ToolAsking {
  readonly #answers: readonly unknown[];
  readonly #asked: string[] = [];
  // Made only when the tool reads its signal or asks: most calls do neither, and a controller per
  // call costs more than the rest of a small tool's call.
  #controller: AbortController | undefined;
  readonly #end: () => void;
  #question: ToolAsked | null = null;

  /** `end` is called once the attempt asked past its answers: the attempt is over, whatever the tool does next. */
  constructor(
    readonly call: ToolCall,
    answers: readonly unknown[],
    end: () => void,
  ) {
    this.#answers = answers;
    this.#end = end;
  }

  /** The question that ended the attempt, as logged, or null when the call did not ask past its answers. */
  get asked(): ToolAsked | null {
    return this.#question;
  }

  /** Aborts once the attempt asked a question nobody has answered yet. */
  get signal(): AbortSignal {
    this.#controller ??= new AbortController();
    if (this.#question !== null && !this.#controller.signal.aborted) this.#controller.abort(this.#reason());
    return this.#controller.signal;
  }

  #reason(): Error {
    return new Error(`${this.call.name} asked a question: the call is made again once it is answered`);
  }

  /** The tool's `ask`: the next answer at hand, else the attempt ends with the question. */
  readonly ask: ToolAsk = async (question, schema) => {
    if (typeof question !== "string") throw new TypeError(`ask takes a question string; got ${typeof question}`);
    const shape = schema === undefined ? undefined : checkedShape(schema);
    const index = this.#asked.length;
    this.#asked.push(question);
    if (index < this.#answers.length) return this.#answers[index];
    if (this.#question === null) {
      const event = { type: "tool.asked", callId: this.call.id, question } as const;
      this.#question = shape === undefined ? event : { ...event, schema: shape };
      this.#controller?.abort(this.#reason());
      this.#end();
    }
    // The attempt is over: its result is dropped, so the tool is left waiting rather than told.
    return new Promise<never>(() => {});
  };

  /** The observation of an attempt that was given answers: what it returned, and that it was made again with them. */
  noted(content: MessageContent): MessageContent {
    if (this.#answers.length === 0) return content;
    const told = this.#answers.map((answer, index) => {
      const question = this.#asked[index];
      const given = JSON.stringify(answer) ?? "null";
      return question === undefined ? `the answer ${given}` : `${JSON.stringify(question)} answered ${given}`;
    });
    const note = `(${this.call.name} asked the user a question while it ran, so the call was made again from the start with the answer: ${told.join("; ")}.)`;
    return typeof content === "string" ? `${content}\n${note}` : [...content, { type: "text", text: note }];
  }
}

/** The answer's shape a tool gave, as JSON that the run can log and check answers against; throws a `TypeError` when it is not one. */
function checkedShape(schema: unknown): Readonly<Record<string, unknown>> {
  const copied = copyJson(schema);
  if (!copied.ok || !isPlainObject(copied.value)) {
    throw new TypeError(
      `ask takes a JSON Schema object as the answer's shape${copied.ok ? "" : `: ${copied.problem}`}`,
    );
  }
  try {
    compileParameters("the answer", copied.value);
  } catch (error) {
    throw new TypeError(`ask's answer shape cannot be enforced: ${describeThrown(error)}`);
  }
  return copied.value;
}
