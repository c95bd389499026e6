const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/**
 * The path of an argument as the model reads it: `filters[0].op`. A top-level key is written as
 * it is; nested keys that are not identifiers are quoted (`meta["x-id"]`); `""` is the whole object.
 */
export function formatPath(segments: readonly (string | number)[]): string {
  let path = "";
  for (const [index, segment] of segments.entries()) {
    if (typeof segment === "number") path += `[${segment}]`;
    else if (index === 0) path = segment;
    else path += IDENTIFIER.test(segment) ? `.${segment}` : `[${JSON.stringify(segment)}]`;
  }
  return path;
}

/** The segments of a JSON Pointer fragment as the validator writes it (`#/filters/0/op`); array indexes of `value` become numbers. */
export function pointerSegments(pointer: string): string[] {
  const body = pointer.startsWith("#") ? pointer.slice(1) : pointer;
  if (body === "") return [];
  return body
    .slice(1)
    .split("/")
    .map((part) => decodeURIComponent(part).replace(/~1/g, "/").replace(/~0/g, "~"));
}

/** The value at `segments` inside `root`, and the segments with array indexes as numbers. */
export function valueAt(root: unknown, segments: readonly string[]): { value: unknown; path: (string | number)[] } {
  let value = root;
  const path: (string | number)[] = [];
  for (const segment of segments) {
    if (Array.isArray(value)) {
      const index = Number(segment);
      path.push(index);
      value = value[index];
    } else {
      path.push(segment);
      value =
        typeof value === "object" && value !== null && Object.hasOwn(value, segment)
          ? (value as Record<string, unknown>)[segment]
          : undefined;
    }
  }
  return { value, path };
}

/** `argument 'p'`, or `the arguments` for the whole object. */
export function argumentNamed(path: string): string {
  return path === "" ? "the arguments" : `argument '${path}'`;
}
