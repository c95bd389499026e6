import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, posix, relative, sep } from "node:path";
import { describe, expect, it } from "vitest";

const SRC = join(import.meta.dirname, "../src");
const PACKAGES = join(import.meta.dirname, "../..");

/** Each part of core and the parts it may import, as docs/architecture.md draws them; "" is the public entry points. */
const ARROWS: Readonly<Record<string, readonly string[]>> = {
  "": ["run", "stores", "log", "decide", "tools", "tools/schema", "data"],
  run: ["log", "stores", "decide", "tools", "tools/schema", "data"],
  stores: ["log", "data"],
  log: ["decide", "data"],
  decide: ["data"],
  tools: ["tools/schema", "data"],
  "tools/schema": ["data"],
  data: [],
};

/** Every module of `src` (tests aside), as a path relative to it with `/` separators. */
function modules(src = SRC): string[] {
  return readdirSync(src, { recursive: true, encoding: "utf8" })
    .filter((file) => file.endsWith(".ts") && !file.endsWith(".test.ts"))
    .map((file) => file.split(sep).join("/"));
}

/** The relative imports of a module of core (type-only ones included), resolved to module paths relative to src. */
function importsOf(file: string): string[] {
  return importsIn(SRC, file);
}

/** The relative imports of a module of `src` (type-only ones included), resolved to module paths relative to it. */
function importsIn(src: string, file: string): string[] {
  const text = readFileSync(join(src, file), "utf8");
  const found = [...text.matchAll(/(?:\bfrom|\bimport)\s*\(?\s*["'](\.{1,2}\/[^"']+)["']/g)];
  return found.map((match) => posix.join(posix.dirname(file), (match[1] ?? "").replace(/\.js$/, ".ts")));
}

/** The import circles of a graph of modules, each as the modules it goes through, back to where it began. */
function circlesOf(graph: ReadonlyMap<string, readonly string[]>): string[] {
  const circles: string[] = [];
  const state = new Map<string, "open" | "closed">();
  const visit = (file: string, path: readonly string[]): void => {
    if (state.get(file) === "closed") return;
    if (state.get(file) === "open") {
      circles.push([...path.slice(path.indexOf(file)), file].join(" -> "));
      return;
    }
    state.set(file, "open");
    for (const next of graph.get(file) ?? []) visit(next, [...path, file]);
    state.set(file, "closed");
  };
  for (const file of graph.keys()) visit(file, []);
  return circles;
}

/** The modules of every package's `src`, each with its imports, by `<package>/src/<path>`. */
function packageGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const name of readdirSync(PACKAGES)) {
    const src = join(PACKAGES, name, "src");
    if (!existsSync(src)) continue;
    for (const file of modules(src)) {
      graph.set(
        `${name}/src/${file}`,
        importsIn(src, file).map((target) => `${name}/src/${target}`),
      );
    }
  }
  return graph;
}

/** The part a module belongs to: its folder under src. */
const partOf = (file: string): string => {
  const folder = posix.dirname(file);
  return folder === "." ? "" : folder;
};

describe("core's parts", () => {
  it("every module lives in a part the architecture names", () => {
    const unknown = modules().filter((file) => !(partOf(file) in ARROWS));
    expect(unknown).toEqual([]);
  });

  it("a part imports only the parts below it, as the arrows of docs/architecture.md go", () => {
    const wrong: string[] = [];
    for (const file of modules()) {
      for (const target of importsOf(file)) {
        const from = partOf(file);
        const to = partOf(target);
        if (from !== to && !(ARROWS[from] ?? []).includes(to)) wrong.push(`${file} -> ${target}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it("another part is imported through its entry module, never a file inside it", () => {
    const inside = modules().flatMap((file) =>
      importsOf(file)
        .filter((target) => partOf(file) !== "" && partOf(target) !== partOf(file))
        .filter((target) => posix.basename(target) !== "index.ts")
        .map((target) => `${file} -> ${target}`),
    );
    expect(inside).toEqual([]);
  });

  it("has no import circle, type-only imports included", () => {
    expect(circlesOf(new Map(modules().map((file) => [file, importsOf(file)])))).toEqual([]);
  });

  it("reads the sources it checks", () => {
    // A guard against the checks above passing on nothing: the parts are all there and import each other.
    const files = modules();
    expect(new Set(files.map(partOf))).toEqual(new Set(Object.keys(ARROWS)));
    expect(files.flatMap(importsOf).length).toBeGreaterThan(100);
    expect(relative(SRC, dirname(join(SRC, "run", "loop", "run-loop.ts")))).toBe("run");
  });
});

describe("every package's sources", () => {
  it("have no import circle, type-only imports included", () => {
    const graph = packageGraph();
    expect([...new Set([...graph.keys()].map((file) => file.split("/")[0]))]).toEqual(
      expect.arrayContaining(["core", "cli", "otel", "restate", "sqlite"]),
    );
    expect(circlesOf(graph)).toEqual([]);
  });

  it("the check sees a circle of two modules, and of three", () => {
    const two = new Map([
      ["otel/src/check-spans.ts", ["otel/src/turn-spans.ts"]],
      ["otel/src/turn-spans.ts", ["otel/src/check-spans.ts"]],
    ]);
    expect(circlesOf(two)).toEqual(["otel/src/check-spans.ts -> otel/src/turn-spans.ts -> otel/src/check-spans.ts"]);
    const three = new Map([
      ["a.ts", ["b.ts"]],
      ["b.ts", ["c.ts"]],
      ["c.ts", ["a.ts", "d.ts"]],
    ]);
    expect(circlesOf(three)).toEqual(["a.ts -> b.ts -> c.ts -> a.ts"]);
  });
});
