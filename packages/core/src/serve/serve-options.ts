import type { MemoryScope, Model, Principal } from "../data/index.js";
import type { EventStore, SpendLimits } from "../log/index.js";
import {
  pricedModels,
  type ResumeOptions,
  type RunOptions,
  resolvePrices,
  type SpendCeiling,
  unpricedNames,
} from "../run/index.js";
import type { ToolRegistry } from "../tools/index.js";

/** The options of a served agent's runs: the limits and policies a run starts with, and the checks of its answers. */
export type ServedRunOptions = Omit<
  RunOptions,
  "store" | "runId" | "owner" | "signal" | "inspect" | "onEvent" | "onLogged" | "approve" | "ceiling"
>;

/**
 * What a served agent runs with, and who may reach it: its model and tools, the store that keeps
 * each conversation as one run, the settings of its runs, and the checks every request passes
 * before any protocol reads it (where it comes from, who it is from). Every front door takes it.
 */
export interface ServeOptions {
  readonly model: Model;
  readonly registry: ToolRegistry;
  /** Keeps each conversation as one logged run, under the client's conversation id. */
  readonly store: EventStore;
  readonly options?: ServedRunOptions;
  /**
   * Who is asking: a principal, or a response that refuses the request (401, 403). A run started
   * for a principal is its tenant's alone; another tenant's request on it is answered as one on a
   * run that does not exist. Without it, no request has a principal (a local, single-user server).
   */
  readonly authorize?: (request: Request) => Principal | Response | Promise<Principal | Response>;
  /**
   * Origins (`https://app.example.com`) whose pages may call the agent; a request whose `Origin` is
   * another site's is refused 403, and only these get CORS answers. Default: none but the server's own.
   */
  readonly allowedOrigins?: readonly string[];
  /**
   * Host names (`agent.example.com`, or with a port) the server answers to; a request for another
   * `Host` is refused 421 (DNS rebinding). Default: localhost, 127.0.0.1 and [::1], at any port.
   */
  readonly allowedHosts?: readonly string[];
  /** Shows a client the error a run failed with; default false: it sees "the agent failed (<runId>)". */
  readonly exposeErrors?: boolean;
  /** Hears every error a run failed with, with the run's id: where the detail a client is not shown goes. */
  readonly onError?: (error: unknown, context: { readonly runId: string }) => void;
  /**
   * A ceiling on what each tenant spends across all their runs, in USD per UTC day and month:
   * before each model call of a served run, the owner's spending in the window (a running total the
   * store keeps, `EventStore.spending`) plus the call's most possible cost must fit, else the turn
   * ends `cost_budget` with the ceiling named (`AgentResult.ceiling`). Needs `options.pricing`.
   */
  readonly tenantBudget?: (principal: Principal) => SpendLimits | undefined;
  /**
   * The memory scope of a conversation, decided when it starts (its log keeps it for every later
   * turn): where `options.memory` recalls from, and where the run's `memoryTools(store)` (given no
   * scope of their own) write and search, e.g. `(principal) => ({ resource: principal.tenant })`.
   * Needs `options.memory` (the store). With `authorize`, a door refuses memory whose one scope
   * would be every tenant's: `options.memory` without it, or memory tools with a scope of their own.
   */
  readonly memoryScope?: (principal: Principal | undefined, conversationId: string) => MemoryScope;
}

/**
 * The spending ceiling of `principal`'s runs, from `tenantBudget` and the store's ledger; none
 * without a principal or a budget for it. A store that keeps no spending is refused.
 */
export function ceilingFor(serve: ServeOptions, principal: Principal | undefined): { ceiling?: SpendCeiling } {
  if (principal === undefined || serve.tenantBudget === undefined) return {};
  const limits = serve.tenantBudget(principal);
  if (limits === undefined) return {};
  const ledger = serve.store.spending;
  if (ledger === undefined) {
    throw new TypeError(
      "tenantBudget needs a store that keeps owners' spending (EventStore.spending); this one keeps none",
    );
  }
  return { ceiling: { owner: principal.tenant, limits, ledger } };
}

/**
 * Refuses, when a door is made, a `tenantBudget` its runs could not be held to: with no
 * `options.pricing`, or with a model a run may call (the model, a fallback, the summarizer) that
 * has no price, whose calls would hold nothing against the ceiling.
 */
export function checkTenantBudget(serve: Partial<Pick<ServeOptions, "tenantBudget" | "options" | "model">>): void {
  if (serve.tenantBudget === undefined || serve.model === undefined) return;
  const options = serve.options ?? {};
  if (options.pricing === undefined) {
    throw new TypeError(
      "a tenant's ceiling needs the runs priced (options.pricing): it holds each model call's most possible cost, which needs its price",
    );
  }
  const { prices } = resolvePrices({ ...options, costBudget: undefined }, serve.model);
  const missing = prices === undefined ? [] : unpricedNames(pricedModels(prices));
  if (missing.length > 0) {
    throw new RangeError(
      `a tenant's ceiling needs a price for every model a run may call, and the pricing has none (nor a "default") for ${missing.join(", ")}`,
    );
  }
}

/**
 * Refuses, when a door is made, memory whose scope a server with `authorize` would share between
 * tenants: `options.memory` with no `memoryScope`, and memory tools in the registry with a scope of
 * their own (`memoryTools(store, scope)`; `memoryTools(store)` reaches each run's scope). And
 * `memoryScope` with no `options.memory` to give it a store.
 */
export function checkServedMemory(
  serve: Partial<Pick<ServeOptions, "authorize" | "options" | "memoryScope" | "registry">>,
): void {
  const memory = serve.options?.memory;
  if (serve.memoryScope !== undefined && memory === undefined) {
    throw new TypeError("memoryScope needs options.memory: the store the conversations' memories are kept in");
  }
  if (serve.authorize === undefined) return;
  if (memory !== undefined && serve.memoryScope === undefined) {
    throw new TypeError(
      "with authorize, options.memory's one scope would be every tenant's: give memoryScope, e.g. (principal) => ({ resource: principal.tenant })",
    );
  }
  for (const { name } of serve.registry?.specs() ?? []) {
    const performer = serve.registry?.performerOf(name);
    if ((performer?.kind === "memory-write" || performer?.kind === "memory-read") && performer.scope !== null) {
      throw new TypeError(
        `with authorize, the memory tool '${name}' reaches one scope for every tenant: make it with memoryTools(store), which reaches each conversation's (memoryScope)`,
      );
    }
  }
}

/** The served options a continued or resumed turn is given again: what a run's log cannot hold. */
export type TurnOptions = Pick<
  ResumeOptions,
  | "prepareStep"
  | "fallbackModels"
  | "compaction"
  | "output"
  | "guardrails"
  | "toolTimeoutMs"
  | "maxResultChars"
  | "memory"
>;

/**
 * The options of the server's that a log cannot hold (functions and models: `prepareStep`,
 * `fallbackModels`, the compaction's `summarizer`, `output`, `guardrails`, the memory's store) and the run-time
 * safeguards: what every turn after the first is given, so that a conversation goes on with every
 * policy it started with, on every front door. The limits and policies a log holds (`maxSteps`,
 * `retry`, `pricing`, ...) are read from the log, and a resume refuses them given again.
 */
export function turnOptionsOf(options: ServeOptions["options"]): TurnOptions {
  if (options === undefined) return {};
  const { prepareStep, fallbackModels, compaction, output, guardrails, toolTimeoutMs, maxResultChars, memory } =
    options;
  const summarizer = compaction?.summarizer;
  return {
    // The store only: the scope and the recall are the log's.
    ...(memory === undefined ? {} : { memory: { store: memory.store } }),
    ...(prepareStep === undefined ? {} : { prepareStep }),
    ...(fallbackModels === undefined ? {} : { fallbackModels }),
    ...(summarizer === undefined ? {} : { compaction: { summarizer } }),
    ...(output === undefined ? {} : { output }),
    ...(guardrails === undefined ? {} : { guardrails }),
    ...(toolTimeoutMs === undefined ? {} : { toolTimeoutMs }),
    ...(maxResultChars === undefined ? {} : { maxResultChars }),
  };
}
