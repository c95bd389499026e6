import { type AgentResult, agentActor, type Model, ToolRegistry } from "@agentloop/core";
import { assign, setup } from "xstate";

/** What the workflow needs: the question, a model for each agent, and the research tools. */
export interface WorkflowInput {
  readonly question: string;
  readonly researcher: Model;
  readonly summarizer: Model;
  readonly tools: ToolRegistry;
}

interface WorkflowContext {
  readonly input: WorkflowInput;
  readonly outcome: WorkflowOutput["outcome"] | null;
  readonly research: AgentResult | null;
  readonly summary: string | null;
  readonly problem: string | null;
}

/** How the workflow ended, with the summary or what went wrong. */
export interface WorkflowOutput {
  readonly outcome: "summarized" | "gaveUp" | "failed";
  readonly summary: string | null;
  readonly problem: string | null;
}

/**
 * A parent workflow that invokes an agent twice: a research agent, then a summary agent on its
 * answer. Each exit of the child is a transition of the parent's own.
 */
export const researchWorkflow = setup({
  types: {
    input: {} as WorkflowInput,
    context: {} as WorkflowContext,
    output: {} as WorkflowOutput,
  },
  actors: { agent: agentActor },
  guards: {
    answered: (_, params: { output: AgentResult }) => params.output.status === "done",
    ranOutOfSteps: (_, params: { output: AgentResult }) => params.output.status === "step_limit",
    ranOutOfBudget: (_, params: { output: AgentResult }) => params.output.status === "token_budget",
  },
}).createMachine({
  id: "researchWorkflow",
  context: ({ input }) => ({ input, outcome: null, research: null, summary: null, problem: null }),
  initial: "researching",
  states: {
    researching: {
      invoke: {
        src: "agent",
        input: ({ context }) => ({
          task: context.input.question,
          model: context.input.researcher,
          registry: context.input.tools,
          maxSteps: 4,
          tokenBudget: 2000,
        }),
        onDone: [
          {
            guard: { type: "answered", params: ({ event }) => ({ output: event.output }) },
            target: "summarizing",
            actions: assign({ research: ({ event }) => event.output }),
          },
          {
            guard: { type: "ranOutOfSteps", params: ({ event }) => ({ output: event.output }) },
            target: "gaveUp",
            actions: assign({ problem: "the research needed more steps than allowed" }),
          },
          {
            guard: { type: "ranOutOfBudget", params: ({ event }) => ({ output: event.output }) },
            target: "gaveUp",
            actions: assign({ problem: "the research ran out of tokens" }),
          },
          {
            target: "gaveUp",
            actions: assign({ problem: ({ event }) => `the research ended with ${event.output.status}` }),
          },
        ],
        onError: {
          target: "failed",
          actions: assign({ problem: ({ event }) => (event.error instanceof Error ? event.error.message : "unknown") }),
        },
      },
    },
    summarizing: {
      invoke: {
        src: "agent",
        input: ({ context }) => ({
          task: `Summarize in one sentence: ${context.research?.answer ?? ""}`,
          model: context.input.summarizer,
          registry: new ToolRegistry(),
          maxSteps: 1,
        }),
        onDone: [
          {
            guard: { type: "answered", params: ({ event }) => ({ output: event.output }) },
            target: "summarized",
            actions: assign({ summary: ({ event }) => event.output.answer }),
          },
          {
            target: "gaveUp",
            actions: assign({ problem: ({ event }) => `the summary ended with ${event.output.status}` }),
          },
        ],
        onError: {
          target: "failed",
          actions: assign({ problem: ({ event }) => (event.error instanceof Error ? event.error.message : "unknown") }),
        },
      },
    },
    summarized: { type: "final", entry: assign({ outcome: "summarized" }) },
    gaveUp: { type: "final", entry: assign({ outcome: "gaveUp" }) },
    failed: { type: "final", entry: assign({ outcome: "failed" }) },
  },
  output: ({ context }) => ({
    outcome: context.outcome ?? "failed",
    summary: context.summary,
    problem: context.problem,
  }),
});
