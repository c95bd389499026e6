import type { AgentRequest, Message, Model, Transcript } from "../../data/index.js";
import { listView } from "../../data/index.js";
import { type AgentContext, unpricedPick } from "../../decide/index.js";
import type { ModelRequest } from "./ask-model.js";
import {
  checkedSettings,
  leavesAlone,
  type PrepareStep,
  pickedModelName,
  prepareStepAnswer,
  type StepInput,
  type StepPreparedAnswer,
} from "./prepare-step.js";

type PrepareRequest = Extract<AgentRequest, { type: "prepareStep" }>;

/** What the step preparer reads of the run as it goes: the machine's context now, and the run's signal. */
export interface PreparedRun {
  context(): Pick<AgentContext, "specs" | "replyReserve" | "tokens" | "costBudget" | "prices">;
  /** Aborts when the run is cancelled or stops; read only when `prepareStep` reads its own. */
  readonly signal: AbortSignal;
}

/**
 * `prepareStep` as a performer: asked in its own request (`prepareStep`), or first within a model
 * call (`callModel` with `prepare`), and again for the model alone when a run resumed in the very
 * call it prepared finds only the model's name in its log. It keeps the models it picked, by step,
 * until the step's reply comes.
 */
export class StepPreparer {
  readonly #prepareStep: PrepareStep | undefined;
  readonly #run: PreparedRun;
  /** The models `prepareStep` picked, by step, until the step's reply comes. */
  readonly #prepared = new Map<number, Model>();

  constructor(prepareStep: PrepareStep | undefined, run: PreparedRun) {
    this.#prepareStep = prepareStep;
    this.#run = run;
  }

  /** The answer to a `prepareStep` request: the step's settings, checked, as `step.prepared`. */
  async prepare(request: PrepareRequest): Promise<StepPreparedAnswer> {
    const prepareStep = this.#preparer();
    const { specs, replyReserve } = this.#run.context();
    return this.#checked(
      request.step,
      await prepareStepAnswer(prepareStep, request, specs, replyReserve, this.#run.signal),
    );
  }

  /**
   * A model call that asks `prepareStep` first: settings that change something are the answer
   * (`step.prepared`, logged before the call the machine then asks for); none, and the model is
   * asked at once with the run's settings (`started`, then `ask`), with nothing logged for the preparation.
   */
  prepareAndAsk<A>(
    request: ModelRequest,
    started: (step: number) => void,
    ask: (request: ModelRequest) => Promise<A>,
  ): Promise<A | StepPreparedAnswer> {
    try {
      const prepareStep = this.#preparer();
      const { step, transcript } = request;
      const { tokens } = this.#run.context();
      const given = prepareStep(new StepView(step, tokens, transcript, this.#run));
      // Most steps are left alone, and most prepareSteps answer at once: then the model is asked
      // with no wait and no promise more than a call without prepareStep makes.
      return given instanceof Promise
        ? given.then((settings: unknown) => this.#afterPreparing(request, settings, started, ask))
        : this.#afterPreparing(request, given, started, ask);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /**
   * The model `prepareStep` picked for the request's step. A run resumed in that very call finds
   * only the model's name in its log: `prepareStep` is asked again for the model alone, and must
   * pick one of the same name.
   */
  async model(request: ModelRequest): Promise<Model> {
    const kept = this.#prepared.get(request.step);
    if (kept !== undefined) return kept;
    const prepared = request.prepared as NonNullable<ModelRequest["prepared"]>;
    const again = await this.prepare({
      type: "prepareStep",
      step: request.step,
      transcript: request.transcript,
      tokens: this.#run.context().tokens,
    });
    if (again.model === undefined || pickedModelName(again.model) !== prepared.model) {
      throw new RangeError(
        `prepareStep picked model '${prepared.model}' for step ${request.step} in the run's log, but ${again.model === undefined ? "no model" : `'${pickedModelName(again.model)}'`} now`,
      );
    }
    this.#prepared.set(request.step, again.model);
    return again.model;
  }

  /** Keeps the model picked for `step` (once its `step.prepared` is taken), forgetting the earlier steps'. */
  keep(step: number, model: Model | undefined): void {
    this.#prepared.clear();
    if (model !== undefined) this.#prepared.set(step, model);
  }

  /** The run's `prepareStep`; a run started with it and resumed without it is refused. */
  #preparer(): PrepareStep {
    const prepareStep = this.#prepareStep;
    if (prepareStep === undefined) {
      throw new TypeError("the run was started with prepareStep: give it again to go on with the run");
    }
    return prepareStep;
  }

  /** The model call once `prepareStep` answered: its settings as the answer when they change something, else the call. */
  #afterPreparing<A>(
    request: ModelRequest,
    settings: unknown,
    started: (step: number) => void,
    ask: (request: ModelRequest) => Promise<A>,
  ): Promise<A | StepPreparedAnswer> {
    const { step } = request;
    if (!leavesAlone(settings)) {
      const { specs, replyReserve } = this.#run.context();
      return Promise.resolve(this.#checked(step, checkedSettings(step, settings, specs, replyReserve)));
    }
    started(step);
    return ask(request);
  }

  /** Refuses a model `prepareStep` picked that the run's cost budget cannot price (`unpricedPick`). */
  #checked(step: number, answer: StepPreparedAnswer): StepPreparedAnswer {
    const priced = unpricedPick(this.#run.context(), answer.event.model);
    if (priced !== null) {
      throw new TypeError(
        `prepareStep picked model '${answer.event.model}' for step ${step}, but a run with costBudget calls only the model it was priced for ('${priced}')`,
      );
    }
    return answer;
  }
}

/**
 * What `prepareStep` is shown for one step. The list's view and the run's signal are made only
 * when read: most prepareSteps read neither on most steps, and a signal made is one more abort to
 * send when the run ends. A class, so that the getters are its prototype's, not made per step.
 */
class StepView implements StepInput {
  #messages: readonly Message[] | undefined;
  readonly #transcript: Transcript;
  readonly #run: PreparedRun;

  constructor(
    readonly step: number,
    readonly tokens: number,
    transcript: Transcript,
    run: PreparedRun,
  ) {
    this.#transcript = transcript;
    this.#run = run;
  }

  get messages(): readonly Message[] {
    this.#messages ??= listView(this.#transcript);
    return this.#messages;
  }

  get signal(): AbortSignal {
    return this.#run.signal;
  }
}
