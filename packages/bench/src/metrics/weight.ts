import { execFile } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { gzipSync } from "node:zlib";
import { build, type Metafile } from "esbuild";
import { median } from "../measure.js";

/** The bench package's folder: the fixtures' imports resolve from its `node_modules`. */
const benchDir = fileURLToPath(new URL("../..", import.meta.url));

/** The fixtures whose weight is measured, by name: a minimal agent for the browser, a chat route for the server. */
export const WEIGHT_FIXTURES = {
  minimalAgent: "fixtures/weight/minimal-agent.js",
  chatHandler: "fixtures/weight/chat-handler.js",
} as const;

/** What an entry costs a page: what loads before it runs (the entry and its static imports), and all of it. */
export interface BundleWeight {
  /** Minified bytes of the chunks that load before the entry runs. */
  readonly initialBytes: number;
  /** The same chunks gzipped one by one (zlib's default level), summed: what is sent before the entry runs. */
  readonly initialGzip: number;
  /** Minified bytes of every chunk, those loaded only when a feature is used included. */
  readonly totalBytes: number;
  readonly totalGzip: number;
  /** Minified bytes of the initial chunks by the package they come from (`@agentloop/core`, `xstate`, ...). */
  readonly byPackage: ReadonlyMap<string, number>;
  /** The packages whose code is in the initial chunks. */
  readonly initialPackages: readonly string[];
}

/**
 * Bundles a fixture as an application would: esbuild, minified, ESM with code splitting (a dynamic
 * `import()` becomes a chunk loaded when it is reached), for `platform`. Deterministic for the same
 * sources and esbuild version; nothing is written to disk.
 */
export async function bundleWeight(entry: string, platform: "browser" | "node"): Promise<BundleWeight> {
  const result = await build({
    absWorkingDir: benchDir,
    entryPoints: [entry],
    bundle: true,
    minify: true,
    format: "esm",
    platform,
    splitting: true,
    outdir: "weight-out",
    write: false,
    metafile: true,
    logLevel: "error",
  });
  const { outputs } = result.metafile;
  const entryOutput = Object.keys(outputs).find((path) => outputs[path]?.entryPoint === entry);
  if (entryOutput === undefined) throw new Error(`weight: no output for ${entry}`);
  const initial = initialChunks(outputs, entryOutput);
  const contentsOf = new Map(result.outputFiles.map((file) => [file.path, file.contents]));
  const sizes = (paths: Iterable<string>) => {
    let bytes = 0;
    let gzip = 0;
    for (const path of paths) {
      const contents = contentsOf.get(join(benchDir, path));
      if (contents === undefined) throw new Error(`weight: no contents for ${path}`);
      bytes += contents.length;
      gzip += gzipSync(contents).length;
    }
    return { bytes, gzip };
  };
  const chunks = Object.keys(outputs).filter((path) => path.endsWith(".js"));
  const first = sizes(initial);
  const all = sizes(chunks);
  const byPackage = new Map<string, number>();
  for (const path of initial) {
    for (const [input, { bytesInOutput }] of Object.entries(outputs[path]?.inputs ?? {})) {
      const name = packageOf(input);
      byPackage.set(name, (byPackage.get(name) ?? 0) + bytesInOutput);
    }
  }
  const initialPackages = [...byPackage].filter(([, bytes]) => bytes > 0).map(([name]) => name);
  return {
    initialBytes: first.bytes,
    initialGzip: first.gzip,
    totalBytes: all.bytes,
    totalGzip: all.gzip,
    byPackage,
    initialPackages,
  };
}

/** The entry's chunk and every chunk it reaches through static imports. */
function initialChunks(outputs: Metafile["outputs"], entry: string): Set<string> {
  const seen = new Set<string>();
  const visit = (path: string) => {
    if (seen.has(path)) return;
    seen.add(path);
    for (const imported of outputs[path]?.imports ?? []) {
      if (imported.kind === "import-statement" && imported.external !== true) visit(imported.path);
    }
  };
  visit(entry);
  return seen;
}

/** The package an input file comes from: the last `node_modules/<name>` in its path, or `@agentloop/<folder>` for a workspace package. */
function packageOf(input: string): string {
  const installed = [...input.matchAll(/node_modules\/((?:@[^/]+\/)?[^/]+)/g)].at(-1);
  if (installed?.[1] !== undefined) return installed[1];
  const workspace = /^\.\.\/([^/]+)\//.exec(input);
  return workspace?.[1] === undefined ? "(the fixture)" : `@agentloop/${workspace[1]}`;
}

/**
 * Milliseconds a fresh Node process takes to import each specifier (timed inside the process,
 * from before the `import()` to its settling: Node's own start is not counted), median of
 * `rounds`; the specifiers take turns in each round, so a change of load weighs on each alike.
 */
export async function coldImports(specifiers: readonly string[], rounds: number): Promise<Map<string, number>> {
  const times = new Map<string, number[]>(specifiers.map((specifier) => [specifier, []]));
  for (let round = 0; round < rounds; round++) {
    for (const specifier of specifiers) times.get(specifier)?.push(await coldImportOnce(specifier));
  }
  return new Map([...times].map(([specifier, values]) => [specifier, median(values)]));
}

async function coldImportOnce(specifier: string): Promise<number> {
  const script = `const start = performance.now(); await import(${JSON.stringify(specifier)}); process.stdout.write(String(performance.now() - start));`;
  const { stdout } = await promisify(execFile)(process.execPath, ["--input-type=module", "-e", script], {
    cwd: benchDir,
  });
  return Number(stdout);
}
