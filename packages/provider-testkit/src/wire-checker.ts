import { toolSchemaProblems } from "./tool-schema-check.js";

/**
 * Collects the problems of one request body, each as `path: what is wrong`, for the wire-format
 * validators of the fake servers. Each check records a problem and returns false instead of throwing,
 * so one request reports all its problems at once.
 */
export class WireChecker {
  readonly problems: string[] = [];

  /** Records a problem at `path`. */
  fail(path: string, message: string): false {
    this.problems.push(`${path}: ${message}`);
    return false;
  }

  /** A JSON object (not null, not an array). */
  object(value: unknown, path: string): value is Record<string, unknown> {
    if (typeof value === "object" && value !== null && !Array.isArray(value)) return true;
    return this.fail(path, `must be an object, got ${JSON.stringify(value)}`);
  }

  /** An object whose keys are all in `allowed` and include every key of `required`. */
  keys(
    value: Record<string, unknown>,
    path: string,
    required: readonly string[],
    optional: readonly string[] = [],
  ): void {
    for (const key of required) if (!(key in value)) this.fail(path, `missing '${key}'`);
    for (const key of Object.keys(value)) {
      if (!required.includes(key) && !optional.includes(key)) this.fail(path, `unexpected key '${key}'`);
    }
  }

  /** A string; with `nonEmpty`, one with at least one non-blank character. */
  string(value: unknown, path: string, nonEmpty = false): value is string {
    if (typeof value !== "string") return this.fail(path, `must be a string, got ${JSON.stringify(value)}`);
    if (nonEmpty && value.trim() === "") return this.fail(path, "must not be empty");
    return true;
  }

  /** An array; with `nonEmpty`, one with at least one item. */
  array(value: unknown, path: string, nonEmpty = false): value is unknown[] {
    if (!Array.isArray(value)) return this.fail(path, `must be an array, got ${JSON.stringify(value)}`);
    if (nonEmpty && value.length === 0) return this.fail(path, "must not be empty");
    return true;
  }

  /** One of the listed literal values. */
  oneOf(value: unknown, path: string, allowed: readonly unknown[]): boolean {
    if (allowed.includes(value)) return true;
    return this.fail(path, `must be one of ${JSON.stringify(allowed)}, got ${JSON.stringify(value)}`);
  }

  /** A positive whole number. */
  positiveInteger(value: unknown, path: string): value is number {
    if (Number.isSafeInteger(value) && (value as number) > 0) return true;
    return this.fail(path, `must be a positive integer, got ${JSON.stringify(value)}`);
  }

  /** A tool's JSON Schema as both APIs take it (see `toolSchemaProblems`). */
  toolSchema(value: unknown, path: string): void {
    if (!this.object(value, path)) return;
    for (const [at, message] of toolSchemaProblems(value, path)) this.fail(at, message);
  }
}
