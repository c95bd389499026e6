type Previous = [never, 0, 1, 2, 3, 4, 5, 6];
type RequiredOf<S> = S extends { readonly required: readonly (infer R)[] } ? R : never;
type Simplify<T> = { [K in keyof T]: T[K] } & {};

type InferObject<S, D extends number> = S extends { readonly properties: infer P }
  ? string extends keyof P
    ? Record<string, unknown>
    : Simplify<
        { -readonly [K in keyof P as K extends RequiredOf<S> ? K : never]: InferJsonSchema<P[K], D> } & {
          -readonly [K in keyof P as K extends RequiredOf<S> ? never : K]?: InferJsonSchema<P[K], D>;
        }
      >
  : Record<string, unknown>;

type InferType<S, T, D extends number> = T extends "string"
  ? string
  : T extends "number" | "integer"
    ? number
    : T extends "boolean"
      ? boolean
      : T extends "null"
        ? null
        : T extends "array"
          ? S extends { readonly items: infer I }
            ? InferJsonSchema<I, D>[]
            : unknown[]
          : T extends "object"
            ? InferObject<S, D>
            : unknown;

/**
 * The TypeScript type of values a literal JSON Schema accepts, for the common keywords (`type`,
 * `properties`, `required`, `items`, `enum`, `const`, `anyOf`, `oneOf`), six levels deep; `unknown`
 * where it would cost more (`$ref`, conditionals).
 */
export type InferJsonSchema<S, D extends number = 6> = [D] extends [never]
  ? unknown
  : S extends { readonly const: infer C }
    ? C
    : S extends { readonly enum: readonly (infer E)[] }
      ? E
      : S extends { readonly anyOf: readonly (infer B)[] }
        ? InferJsonSchema<B, Previous[D]>
        : S extends { readonly oneOf: readonly (infer B)[] }
          ? InferJsonSchema<B, Previous[D]>
          : S extends { readonly type: infer T }
            ? T extends readonly (infer U)[]
              ? InferType<S, U, Previous[D]>
              : InferType<S, T, Previous[D]>
            : unknown;
