// The interfaces of Standard Schema and Standard JSON Schema (https://standardschema.dev), copied
// as the specification invites, so that core needs no package for types alone.

/** A schema any Standard Schema library (zod 4, valibot, arktype...) implements: `~standard.validate`. */
export interface StandardSchemaV1<Input = unknown, Output = Input> {
  readonly "~standard": StandardSchemaV1.Props<Input, Output>;
}

export declare namespace StandardSchemaV1 {
  interface Props<Input = unknown, Output = Input> {
    readonly version: 1;
    readonly vendor: string;
    readonly validate: (value: unknown, options?: Options) => Result<Output> | Promise<Result<Output>>;
    readonly types?: Types<Input, Output> | undefined;
  }
  interface Options {
    readonly libraryOptions?: Record<string, unknown> | undefined;
  }
  type Result<Output> = SuccessResult<Output> | FailureResult;
  interface SuccessResult<Output> {
    readonly value: Output;
    readonly issues?: undefined;
  }
  interface FailureResult {
    readonly issues: ReadonlyArray<Issue>;
  }
  interface Issue {
    readonly message: string;
    readonly path?: ReadonlyArray<PropertyKey | PathSegment> | undefined;
  }
  interface PathSegment {
    readonly key: PropertyKey;
  }
  interface Types<Input = unknown, Output = Input> {
    readonly input: Input;
    readonly output: Output;
  }
  type InferInput<Schema extends StandardSchemaV1> = NonNullable<Schema["~standard"]["types"]>["input"];
  type InferOutput<Schema extends StandardSchemaV1> = NonNullable<Schema["~standard"]["types"]>["output"];
}

/** The converter a Standard JSON Schema exposes as `~standard.jsonSchema`. */
export interface StandardJSONSchemaConverter {
  readonly input: (options: { readonly target: string }) => Record<string, unknown>;
  readonly output: (options: { readonly target: string }) => Record<string, unknown>;
}

/**
 * A Standard Schema that can also describe its input as JSON Schema (`~standard.jsonSchema`):
 * what a tool's `parameters` may be, validated by the library and shown to the model as JSON Schema.
 */
export interface StandardToolSchema<Input = unknown, Output = Input> {
  readonly "~standard": StandardSchemaV1.Props<Input, Output> & { readonly jsonSchema: StandardJSONSchemaConverter };
}

/** Whether `value` carries a `~standard` property, which makes it a Standard Schema rather than a JSON Schema. */
export function hasStandardProps(value: unknown): value is { readonly "~standard": unknown } {
  return (typeof value === "object" || typeof value === "function") && value !== null && "~standard" in value;
}
