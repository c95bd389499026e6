/** The system prompt used when none is given (the run's, or a handoff target's). */
export const DEFAULT_SYSTEM = "Use the tools to answer the user.";
