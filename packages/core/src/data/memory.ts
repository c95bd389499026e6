import { describeValue } from "./describe-value.js";
import { isPlainObject } from "./is-plain-object.js";

/** Whose memories: a user's or a tenant's across conversations (`resource`), or one conversation's (`thread`). */
export type MemoryScope = { readonly resource: string } | { readonly thread: string };

/** A memory found by a search: its key and value, and how well it matched (higher is better). */
export interface MemoryHit {
  readonly key: string;
  readonly value: string;
  readonly score: number;
}

/**
 * Where an agent's memories are kept, by scope and key. `search` gives at most `limit` hits, best
 * first, ties by key (code-unit order), so the same data gives the same hits in the same order in
 * every store; `delete` without a key removes the whole scope. Each method rejects when the store
 * cannot do it; a scope of another shape is refused with a `TypeError`.
 */
export interface MemoryStore {
  put(scope: MemoryScope, key: string, value: string): Promise<void>;
  get(scope: MemoryScope, key: string): Promise<string | undefined>;
  search(scope: MemoryScope, query: string, limit: number): Promise<readonly MemoryHit[]>;
  delete(scope: MemoryScope, key?: string): Promise<void>;
}

/**
 * Turns a text into a vector for semantic search: an embedding model, or any function. A store
 * given one calls it once per write (the vector is stored beside the value) and once per search
 * (for the query); never per step, and never on replay.
 */
export type MemoryEmbed = (text: string) => readonly number[] | Promise<readonly number[]>;

/** A memory setting as a run logs it (`run.started`): whose memories, and how many are recalled before each turn (0: none). */
export interface MemorySettings {
  readonly scope: MemoryScope;
  readonly recall: number;
}

/** A NUL, or half of a surrogate pair alone: text that SQL stores cannot keep as it is. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const UNKEEPABLE = { test: (text: string): boolean => text.includes("\u0000") || LONE_SURROGATE.test(text) };

/** Keys are 1 to 256 characters. */
export const MAX_MEMORY_KEY_CHARS = 256;

/** The scope as one string (`resource:<id>` or `thread:<id>`): how stores key it, never the same for two scopes. */
export function scopeKey(scope: MemoryScope): string {
  const problem = scopeProblem(scope);
  if (problem !== null) throw new TypeError(problem);
  return "resource" in scope ? `resource:${scope.resource}` : `thread:${scope.thread}`;
}

/** Why `scope` is not a memory scope, or null when it is: exactly one of `resource` or `thread`, a non-empty string. */
export function scopeProblem(scope: unknown): string | null {
  const shape = `a memory scope must be { resource: string } or { thread: string }; got ${describeValue(scope, true)}`;
  if (!isPlainObject(scope)) return shape;
  const keys = Object.keys(scope);
  if (keys.length !== 1 || (keys[0] !== "resource" && keys[0] !== "thread")) return shape;
  const id = scope[keys[0]];
  if (typeof id === "string" && id.length > 0 && !UNKEEPABLE.test(id)) return null;
  return `a memory scope's ${keys[0]} must be a non-empty string of well-formed text without NUL characters`;
}

/** A scope as given, checked and copied (so that a caller's object changed later changes nothing logged). */
export function checkedScope(scope: unknown): MemoryScope {
  const problem = scopeProblem(scope);
  if (problem !== null) throw new TypeError(problem);
  const given = scope as Record<string, string>;
  return "resource" in given ? { resource: given.resource as string } : { thread: given.thread as string };
}

/**
 * Throws a `TypeError` for a key that is not 1 to 256 characters or a value that is not a string,
 * or for either holding a NUL or a lone surrogate (which a SQL text column cannot keep as it is):
 * so every store keeps exactly what it accepts.
 */
export function checkMemoryWrite(key: unknown, value: unknown): void {
  if (typeof key !== "string" || key.length === 0 || key.length > MAX_MEMORY_KEY_CHARS) {
    throw new TypeError(
      `a memory key must be a string of 1 to ${MAX_MEMORY_KEY_CHARS} characters; got ${describeValue(key, true)}`,
    );
  }
  if (typeof value !== "string") {
    throw new TypeError(`a memory value must be a string; got ${describeValue(value, true)}`);
  }
  if (UNKEEPABLE.test(key) || UNKEEPABLE.test(value)) {
    throw new TypeError("a memory key or value must be well-formed text without NUL characters or lone surrogates");
  }
}

/** Whether two scopes are the same scope. */
export function sameScope(a: MemoryScope, b: MemoryScope): boolean {
  return scopeKey(a) === scopeKey(b);
}
