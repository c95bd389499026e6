import { existsSync, statSync } from "node:fs";
import { extname, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type { EvalCase, EvaluateOptions } from "@agentloop/evals";
import { messageOf, UsageError } from "../cli-error.js";
import { importOptional } from "./optional-module.js";

/** What an eval file exports (as its default export, or as named exports): the cases, how to run one, and the scorers. */
export type EvalDefinition = Pick<EvaluateOptions, "run" | "scorers"> &
  Partial<Pick<EvaluateOptions, "name" | "concurrency">> & { readonly cases?: readonly EvalCase[] };

const TYPESCRIPT = new Set([".ts", ".mts", ".cts", ".tsx"]);

/**
 * Imports an eval file (TypeScript through tsx, as a tools module is) and checks its shape. A
 * missing file, a file that throws on load, or one without `run` and `scorers` is a `UsageError`
 * naming the file and what is wrong.
 */
export async function loadEvalFile(path: string): Promise<EvalDefinition> {
  const absolute = resolve(path);
  if (!existsSync(absolute) || !statSync(absolute).isFile()) throw new UsageError(`eval file '${path}' does not exist`);
  let module: Record<string, unknown>;
  try {
    const url = pathToFileURL(absolute).href;
    if (TYPESCRIPT.has(extname(absolute).toLowerCase())) {
      const { tsImport } = await importOptional<typeof import("tsx/esm/api")>("tsx/esm/api", `eval file '${path}'`, [
        "tsx",
      ]);
      module = (await tsImport(url, import.meta.url)) as Record<string, unknown>;
    } else module = (await import(url)) as Record<string, unknown>;
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw new UsageError(`eval file '${path}' failed to load: ${messageOf(error)}`);
  }
  const definition = (isObject(module.default) ? module.default : module) as Record<string, unknown>;
  if (typeof definition.run !== "function") {
    throw new UsageError(
      `eval file '${path}' must export run(case, context), as a named export or on its default export`,
    );
  }
  if (!Array.isArray(definition.scorers)) throw new UsageError(`eval file '${path}' must export scorers (an array)`);
  if (definition.cases !== undefined && !Array.isArray(definition.cases)) {
    throw new UsageError(`eval file '${path}': cases must be an array`);
  }
  return definition as EvalDefinition;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null;
}
