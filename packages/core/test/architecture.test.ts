import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, posix, sep } from "node:path";
import { describe, expect, it } from "vitest";

const SRC = join(import.meta.dirname, "../src");
const PACKAGES = join(import.meta.dirname, "../..");

/** The parts below run/: every room of run/ may import them. */
const BELOW_RUN = ["log", "stores", "decide", "tools", "tools/schema", "data"];

/**
 * Each part of core and the parts it may import, as docs/architecture.md draws them; "" is the
 * public entry points. run/ is the rooms behind its entry module: api, then children, then loop,
 * then options (the options a run is given and the settings they resolve to), then performers,
 * each importing only the rooms after it. testing/ holds the test doubles and fixtures behind
 * `@agentloop/core/testing`: only the public entry points import it.
 */
const ARROWS: Readonly<Record<string, readonly string[]>> = {
  "": ["serve", "run", "testing", "stores", "log", "decide", "tools", "tools/schema", "data"],
  serve: ["run", "log", "tools", "data"],
  run: ["run/api", "run/children", "run/loop", "run/options", "run/performers"],
  "run/api": ["run/children", "run/loop", "run/options", "run/performers", ...BELOW_RUN],
  "run/children": ["run/loop", "run/options", "run/performers", ...BELOW_RUN],
  "run/loop": ["run/options", "run/performers", ...BELOW_RUN],
  "run/options": ["run/performers", ...BELOW_RUN],
  "run/performers": BELOW_RUN,
  testing: ["tools", "data"],
  stores: ["log", "data"],
  log: ["decide", "data"],
  decide: ["data"],
  tools: ["tools/schema", "data"],
  "tools/schema": ["data"],
  data: [],
};

/** Every module of `src` (tests aside), as a path relative to it with `/` separators. */
function modules(src = SRC): string[] {
  return sources(src).filter((file) => !file.endsWith(".test.ts"));
}

/** Every TypeScript file of `src`, tests included, as a path relative to it with `/` separators. */
function sources(src = SRC): string[] {
  return readdirSync(src, { recursive: true, encoding: "utf8" })
    .filter((file) => file.endsWith(".ts"))
    .map((file) => file.split(sep).join("/"));
}

/** The files of `src` with an `export * from`, which re-exports names no one listed. */
function starExports(src = SRC): string[] {
  return sources(src).filter((file) => /^\s*export\s+\*/m.test(readFileSync(join(src, file), "utf8")));
}

/** What a module of `src` re-exports with `export * from`, in order. */
function starredModules(file: string, src = SRC): string[] {
  const text = readFileSync(join(src, file), "utf8");
  return [...text.matchAll(/^\s*export\s+\*\s+from\s+"([^"]+)"/gm)].map((match) => match[1] as string);
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

/** Core's modules, each with its imports. */
const coreGraph = (): Map<string, string[]> => new Map(modules().map((file) => [file, importsOf(file)]));

/** The imports of a graph that go against the arrows: into a part that the importer's part may not import. */
function againstArrows(graph: ReadonlyMap<string, readonly string[]>): string[] {
  return [...graph].flatMap(([file, targets]) =>
    targets
      .filter((target) => partOf(target) !== partOf(file) && !(ARROWS[partOf(file)] ?? []).includes(partOf(target)))
      .map((target) => `${file} -> ${target}`),
  );
}

/** The imports of a graph of a file inside another part, past its entry module (the public entry points may). */
function pastEntries(graph: ReadonlyMap<string, readonly string[]>): string[] {
  return [...graph].flatMap(([file, targets]) =>
    targets
      .filter((target) => partOf(file) !== "" && partOf(target) !== partOf(file))
      .filter((target) => posix.basename(target) !== "index.ts")
      .map((target) => `${file} -> ${target}`),
  );
}

describe("core's parts", () => {
  it("every module lives in a part the architecture names", () => {
    const unknown = modules().filter((file) => !(partOf(file) in ARROWS));
    expect(unknown).toEqual([]);
  });

  it("a part imports only the parts below it, as the arrows of docs/architecture.md go, and so does a room of run/", () => {
    expect(againstArrows(coreGraph())).toEqual([]);
  });

  it("another part (or room) is imported through its entry module, never a file inside it", () => {
    expect(pastEntries(coreGraph())).toEqual([]);
  });

  it("has no import circle, type-only imports included", () => {
    expect(circlesOf(coreGraph())).toEqual([]);
  });

  it("run/ holds its rooms and its entry module, no module of its own", () => {
    expect(modules().filter((file) => partOf(file) === "run")).toEqual(["run/index.ts"]);
  });

  it("lists every name an entry module re-exports: no export * in src but run/'s of api/ and children/", () => {
    // Their entry modules list each name; every other entry module, the public ones first, lists its own.
    expect(starExports()).toEqual(["run/index.ts"]);
    expect(starredModules("run/index.ts")).toEqual(["./api/index.js", "./children/index.js"]);
  });

  it("reads the sources it checks", () => {
    // A guard against the checks above passing on nothing: the parts are all there and import each other.
    const files = modules();
    expect(new Set(files.map(partOf))).toEqual(new Set(Object.keys(ARROWS)));
    expect(files.flatMap(importsOf).length).toBeGreaterThan(100);
    expect(files).toEqual(expect.arrayContaining(["run/loop/run-loop.ts", "run/api/run-agent.ts"]));
    // Every room but api is imported by another room, through its entry module.
    const rooms = Object.keys(ARROWS).filter((part) => part.startsWith("run/"));
    const entered = new Set(files.filter((file) => partOf(file).startsWith("run/")).flatMap(importsOf));
    expect(rooms.filter((room) => !entered.has(`${room}/index.ts`))).toEqual(["run/api"]);
  });
});

describe("the checks of core's parts", () => {
  it("see an arrow up the rooms of run/, into testing/, and a room's file imported past its entry module", () => {
    const graph = new Map([
      ["run/api/run-agent.ts", ["run/loop/index.ts", "run/children/index.ts", "data/index.ts"]],
      ["run/options/settings.ts", ["run/loop/index.ts"]],
      ["run/performers/handoff.ts", ["run/options/index.ts"]],
      ["serve/conversation.ts", ["testing/index.ts"]],
      ["run/loop/run-loop.ts", ["run/children/child-calls.ts", "run/performers/index.ts"]],
      ["run/children/child-calls.ts", ["run/api/index.ts"]],
      ["index.ts", ["run/index.ts", "run/loop/run-loop.ts"]],
    ]);
    expect(againstArrows(graph)).toEqual([
      "run/options/settings.ts -> run/loop/index.ts",
      "run/performers/handoff.ts -> run/options/index.ts",
      "serve/conversation.ts -> testing/index.ts",
      "run/loop/run-loop.ts -> run/children/child-calls.ts",
      "run/children/child-calls.ts -> run/api/index.ts",
      "index.ts -> run/loop/run-loop.ts",
    ]);
    expect(pastEntries(graph)).toEqual(["run/loop/run-loop.ts -> run/children/child-calls.ts"]);
  });

  it("sees an export * in a file", () => {
    const dir = mkdtempSync(join(tmpdir(), "architecture-"));
    try {
      mkdirSync(join(dir, "part"));
      writeFileSync(join(dir, "part", "index.ts"), 'export { a } from "./a.js";\nexport * from "./b.js";\n');
      writeFileSync(join(dir, "part", "a.ts"), "export const a = 1;\n");
      expect(starExports(dir)).toEqual(["part/index.ts"]);
      expect(starredModules("part/index.ts", dir)).toEqual(["./b.js"]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
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
