/** The path a run took through a chart: how often each state was entered and each transition taken, and where it ended. */
export interface RunPath {
  readonly visits: ReadonlyMap<string, number>;
  readonly taken: ReadonlyMap<string, number>;
  /** The deepest state the run was in when its log ended. */
  readonly end: string;
}

/** No run: nothing visited. */
export const NO_PATH: RunPath = { visits: new Map(), taken: new Map(), end: "" };
