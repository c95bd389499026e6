import { type Tool, ToolRegistry } from "../core-api.js";
import { checkToolPolicy } from "./run-options.js";

/**
 * A registry that applies `--approve-tool` and `--deny-tool` to the tools added to it, for a served
 * agent (its turns are started and resumed by the protocol handler, which takes no approver): an
 * approved tool is kept without `needsApproval`, so its calls run without a pause; a denied one
 * answers every call with the denial, which the model reads as the call's error. `check()`, once
 * every tool is added, refuses the names `run` refuses: a tool that needs no approval or is not there.
 */
export class ServedToolRegistry extends ToolRegistry {
  readonly #approved: readonly string[];
  readonly #denied: readonly string[];
  readonly #reason: string | undefined;
  /** The tools named by the flags that were added with `needsApproval`. */
  readonly #decided = new Set<string>();

  constructor(approved: readonly string[], denied: readonly string[], reason: string | undefined) {
    super();
    this.#approved = approved;
    this.#denied = denied;
    this.#reason = reason;
  }

  override add(...tools: Tool[]): this {
    return super.add(...tools.map((each) => this.#decide(each)));
  }

  /** Refuses a flag that names a tool which needs no approval, or no tool at all, and a tool both approved and denied. */
  check(): void {
    checkToolPolicy(this.#approved, this.#denied, [...this.approvalRequired(), ...this.#decided]);
  }

  #decide(tool: Tool): Tool {
    const approved = this.#approved.includes(tool.name);
    const denied = this.#denied.includes(tool.name);
    if ((!approved && !denied) || tool.needsApproval !== true) return tool;
    this.#decided.add(tool.name);
    if (approved) return { ...tool, needsApproval: false };
    const why = this.#reason === undefined ? "" : ` (${this.#reason})`;
    return {
      ...tool,
      needsApproval: false,
      execute: () => {
        throw new Error(`every call to ${tool.name} is denied on this server${why}, so it was not run`);
      },
    };
  }
}
