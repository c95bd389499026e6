import { pointerSegments, type ToolCall, type ToolSpec, valueAt } from "@agentloop/core/adapter";
import { OpenAIRequestError } from "./errors.js";

type Schema = { readonly [keyword: string]: unknown };

/**
 * Keywords strict mode does not take that only narrow what is valid: left out of the schema the
 * model is held to. The registry still checks the call against the schema as registered, so a
 * call that breaks one of them comes back to the model as an `ERROR:` observation.
 */
const LEFT_OUT = new Set([
  "not",
  "if",
  "then",
  "else",
  "dependentRequired",
  "dependentSchemas",
  "dependencies",
  "propertyNames",
  "minProperties",
  "maxProperties",
  "unevaluatedProperties",
  "unevaluatedItems",
  "uniqueItems",
  "contains",
  "minContains",
  "maxContains",
  "default",
  "examples",
  "$comment",
  "$schema",
  "$id",
  "readOnly",
  "writeOnly",
  "deprecated",
  "contentEncoding",
  "contentMediaType",
  "contentSchema",
]);

/** Keywords that strict mode cannot express without refusing calls the tool takes. */
const REFUSED: Readonly<Record<string, string>> = {
  allOf: "'allOf' (strict mode has no intersections)",
  patternProperties: "'patternProperties' (strict mode closes every object to the properties it lists)",
  prefixItems: "'prefixItems' (strict mode has no tuples)",
  additionalItems: "'additionalItems' (strict mode has no tuples)",
  $anchor: "'$anchor' (strict mode resolves only '#/...' references)",
  $dynamicRef: "'$dynamicRef' (strict mode resolves only '#/...' references)",
  $dynamicAnchor: "'$dynamicAnchor' (strict mode resolves only '#/...' references)",
};

/**
 * The tool's parameters as OpenAI's strict mode (`strict: true`, Structured Outputs) takes them:
 * every object lists all its properties in `required` and sets `additionalProperties: false`; a
 * property the schema left optional becomes nullable instead (`anyOf: [its schema, null]`), and a
 * `null` the model sends for it is dropped from the arguments again (`withoutStrictNulls`); `oneOf`
 * becomes `anyOf`; keywords strict mode does not take that only narrow what is valid are left
 * out (the registry still checks them). Throws `OpenAIRequestError` for what cannot be expressed:
 * an object open to other properties (`additionalProperties` other than false, or no properties
 * at all below the root), `allOf`, `patternProperties`, tuples, and references outside the schema.
 */
export function toStrictParameters(tool: ToolSpec): Schema {
  const { $schema: _dialect, ...schema } = tool.parameters as Schema;
  const refuse = (path: string, why: string): never => {
    throw new OpenAIRequestError(`tool '${tool.name}' cannot be sent with strict: true: ${path} ${why}`);
  };
  return strictNode({ ...schema, type: "object", properties: schema.properties ?? {} }, "the root", true, refuse);
}

type Refuse = (path: string, why: string) => never;

function strictNode(schema: Schema, path: string, isRoot: boolean, refuse: Refuse): Schema {
  const out: Record<string, unknown> = {};
  for (const [keyword, value] of Object.entries(schema)) {
    const refused = REFUSED[keyword];
    if (refused !== undefined) refuse(path, `uses ${refused}`);
    if (LEFT_OUT.has(keyword)) continue;
    switch (keyword) {
      case "$ref":
        if (typeof value !== "string" || !value.startsWith("#/"))
          refuse(path, `has a $ref outside the schema (${String(value)})`);
        out.$ref = value;
        break;
      case "items":
        if (!isSchema(value)) refuse(path, "has tuple-form 'items' (strict mode has no tuples)");
        out.items = strictNode(value as Schema, `${path}.items`, false, refuse);
        break;
      case "anyOf":
      case "oneOf": {
        const branches = Array.isArray(value) ? value : [];
        const converted = branches.map((branch, index) =>
          strictNode(asSchema(branch), `${path}.${keyword}[${index}]`, false, refuse),
        );
        out.anyOf = [...((out.anyOf as Schema[] | undefined) ?? []), ...converted];
        break;
      }
      case "$defs":
      case "definitions": {
        const defs: Record<string, Schema> = {};
        for (const [name, def] of Object.entries(asSchema(value))) {
          defs[name] = strictNode(asSchema(def), `${path}.${keyword}.${name}`, false, refuse);
        }
        out[keyword] = defs;
        break;
      }
      case "properties":
      case "required":
      case "additionalProperties":
        break;
      default:
        out[keyword] = value;
    }
  }
  if (!isObjectSchema(schema)) return out;
  if ("additionalProperties" in schema && schema.additionalProperties !== false) {
    refuse(path, "is open to other properties ('additionalProperties' other than false)");
  }
  const properties = asSchema(schema.properties);
  if (!isRoot && schema.properties === undefined) {
    refuse(path, "is a free-form object (it lists no properties)");
  }
  const required = new Set(Array.isArray(schema.required) ? schema.required : []);
  const strictProperties: Record<string, Schema> = {};
  for (const [key, property] of Object.entries(properties)) {
    const strict = strictNode(asSchema(property), `${path}.properties.${key}`, false, refuse);
    strictProperties[key] = required.has(key) || acceptsNull(strict) ? strict : nullable(strict);
  }
  return { ...out, properties: strictProperties, required: Object.keys(properties), additionalProperties: false };
}

/** `schema` or null, its description kept on the outside where the model reads it first. */
function nullable(schema: Schema): Schema {
  const { description, title, ...rest } = schema;
  return {
    anyOf: [rest, { type: "null" }],
    ...(title === undefined ? {} : { title }),
    ...(description === undefined ? {} : { description }),
  };
}

/** Whether `null` is a value the schema plainly takes (its type, an enum or const, or a branch of its anyOf). */
function acceptsNull(schema: Schema): boolean {
  const { type } = schema;
  if (type === "null" || (Array.isArray(type) && type.includes("null"))) return true;
  if (schema.const === null || (Array.isArray(schema.enum) && schema.enum.includes(null))) return true;
  return Array.isArray(schema.anyOf) && schema.anyOf.some((branch) => acceptsNull(asSchema(branch)));
}

function isObjectSchema(schema: Schema): boolean {
  const { type } = schema;
  return type === "object" || (Array.isArray(type) && type.includes("object")) || schema.properties !== undefined;
}

function isSchema(value: unknown): value is Schema {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function asSchema(value: unknown): Schema {
  return isSchema(value) ? value : {};
}

/**
 * The call with the `null`s strict mode made the model send for properties the tool's schema
 * leaves optional (and does not take null for) dropped again, at any depth the schema's
 * `properties`, `items` and local `$ref`s reach; other values are left as they came.
 */
export function withoutStrictNulls(call: ToolCall, tools: readonly ToolSpec[]): ToolCall {
  const tool = tools.find((spec) => spec.name === call.name);
  if (tool === undefined || call.rawArgs !== undefined) return call;
  const root = tool.parameters as Schema;
  const args = dropNulls(call.args, root, root, 0);
  return args === call.args ? call : { ...call, args: args as ToolCall["args"] };
}

/** Arguments nest at most this deep in a reply core accepts: deeper ones are left for its check. */
const MAX_DEPTH = 64;

function dropNulls(value: unknown, schema: Schema, root: Schema, depth: number): unknown {
  const resolved = resolveRef(schema, root);
  if (depth > MAX_DEPTH || resolved === undefined) return value;
  if (Array.isArray(value)) {
    if (!isSchema(resolved.items)) return value;
    const items = resolved.items;
    const mapped = value.map((item) => dropNulls(item, items, root, depth + 1));
    return mapped.every((item, index) => item === value[index]) ? value : mapped;
  }
  if (!isSchema(value) || !isSchema(resolved.properties)) return value;
  const properties = resolved.properties;
  const required = new Set(Array.isArray(resolved.required) ? resolved.required : []);
  let changed = false;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    const property = isSchema(properties[key]) ? (properties[key] as Schema) : undefined;
    if (property === undefined) {
      out[key] = item;
      continue;
    }
    const target = resolveRef(property, root);
    if (item === null && !required.has(key) && target !== undefined && !acceptsNull(target)) {
      changed = true;
      continue;
    }
    const next = dropNulls(item, property, root, depth + 1);
    changed ||= next !== item;
    out[key] = next;
  }
  return changed ? out : value;
}

/** The schema a local `$ref` points to (followed up to a few hops), the schema itself without one, or undefined. */
function resolveRef(schema: Schema, root: Schema): Schema | undefined {
  let current: Schema = schema;
  for (let hops = 0; typeof current.$ref === "string"; hops++) {
    if (hops > 16 || !current.$ref.startsWith("#/")) return undefined;
    const { value } = valueAt(root, pointerSegments(current.$ref));
    if (!isSchema(value)) return undefined;
    current = value;
  }
  return current;
}
