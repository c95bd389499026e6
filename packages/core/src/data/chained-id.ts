/**
 * Chained ids name the calls a tree of runs waits on: `<parent call id>/<child call id>`, at any
 * depth. A call id is the model's data and may hold `/` or `%`: inside a chained id each call id is
 * written with `%` as `%25` and `/` as `%2F`, so that no two calls of a tree share a chained id.
 */

/** A call id as one segment of a chained id: `%` written `%25` and `/` written `%2F`. */
export function escapeCallId(id: string): string {
  return id.replace(/%/g, "%25").replace(/\//g, "%2F");
}

/** The call id a segment of a chained id stands for (the inverse of `escapeCallId`). */
export function unescapeCallId(segment: string): string {
  return segment.replace(/%(25|2F)/g, (_match, code: string) => (code === "25" ? "%" : "/"));
}

/**
 * The chained id of a call of the child that call `parentCallId` runs: `childCallId` is the child's
 * own call id, or, with `chained`, the chained id of a call of the child's own tree.
 */
export function chainCallId(parentCallId: string, childCallId: string, chained = false): string {
  return `${escapeCallId(parentCallId)}/${chained ? childCallId : escapeCallId(childCallId)}`;
}

/** The call ids a chained id is made of, from the root's call to the waiting call's own id. */
export function splitChainedId(id: string): string[] {
  return id.split("/").map(unescapeCallId);
}
