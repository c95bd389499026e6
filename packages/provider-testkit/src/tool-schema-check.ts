const TYPES = ["string", "integer", "number", "boolean", "object", "array", "null"];
const SCHEMA_KEYWORDS = ["items", "additionalProperties", "not", "if", "then", "else", "contains", "propertyNames"];
const LIST_KEYWORDS = ["anyOf", "oneOf", "allOf", "prefixItems"];
const MAP_KEYWORDS = ["properties", "$defs", "definitions", "patternProperties"];

/**
 * The problems of a tool's JSON Schema as both APIs take it: an object root with `properties`,
 * `required` naming them, a known `type` everywhere, every `$ref` a local pointer that resolves,
 * and no `$schema` (the adapters leave it out). Each problem is `[path, message]`.
 */
export function toolSchemaProblems(root: Record<string, unknown>, path: string): [string, string][] {
  const problems: [string, string][] = [];
  if (root.type !== "object") problems.push([`${path}.type`, `must be "object", got ${JSON.stringify(root.type)}`]);
  if (!isObject(root.properties)) problems.push([`${path}.properties`, "must be an object"]);
  if ("required" in root) {
    const names = Array.isArray(root.required) ? root.required : [];
    if (!Array.isArray(root.required)) problems.push([`${path}.required`, "must be an array"]);
    for (const [index, name] of names.entries()) {
      if (typeof name !== "string" || !isObject(root.properties) || !(name in root.properties)) {
        problems.push([`${path}.required[${index}]`, `names no property: ${JSON.stringify(name)}`]);
      }
    }
  }
  walk(root, path, (schema, at) => {
    if ("$schema" in schema) problems.push([`${at}.$schema`, "is not sent"]);
    const type = schema.type;
    const types = Array.isArray(type) ? type : [type];
    if (type !== undefined && !types.every((each) => TYPES.includes(each as string))) {
      problems.push([`${at}.type`, `must be one of ${JSON.stringify(TYPES)}, got ${JSON.stringify(type)}`]);
    }
    if ("$ref" in schema && resolve(root, schema.$ref) === undefined) {
      problems.push([`${at}.$ref`, `${JSON.stringify(schema.$ref)} resolves to nothing in the schema`]);
    }
  });
  return problems;
}

function walk(schema: unknown, path: string, visit: (schema: Record<string, unknown>, path: string) => void): void {
  if (!isObject(schema)) return;
  visit(schema, path);
  for (const keyword of SCHEMA_KEYWORDS) walk(schema[keyword], `${path}.${keyword}`, visit);
  for (const keyword of LIST_KEYWORDS) {
    const list = schema[keyword];
    if (Array.isArray(list))
      for (const [index, item] of list.entries()) walk(item, `${path}.${keyword}[${index}]`, visit);
  }
  for (const keyword of MAP_KEYWORDS) {
    const map = schema[keyword];
    if (isObject(map)) for (const [key, item] of Object.entries(map)) walk(item, `${path}.${keyword}.${key}`, visit);
  }
}

function resolve(root: Record<string, unknown>, ref: unknown): unknown {
  if (typeof ref !== "string" || !ref.startsWith("#")) return undefined;
  let current: unknown = root;
  for (const part of ref.slice(1).split("/").filter(Boolean)) {
    const key = decodeURIComponent(part).replace(/~1/g, "/").replace(/~0/g, "~");
    current = isObject(current) && Object.hasOwn(current, key) ? current[key] : undefined;
  }
  return current;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
