import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

/** The package's compiled browser modules: `dist/**\/client/*.js`, compiled by `tsconfig.client.json`. */
const DIST = fileURLToPath(new URL("../../dist/", import.meta.url));

const IMPORT = /^import\s*\{([^}]*)\}\s*from\s*"(\.[^"]+)";?\s*$/gm;
const BARE_IMPORT = /^import\s/m;
const EXPORTED = /^export\s+(?:async\s+)?(?:function\*?|class|const|let)\s+([A-Za-z_$][\w$]*)/gm;

const bundles = new Map<string, string>();

/**
 * One script for the page from a compiled entry module (`html/client/report-main.js`) and the
 * modules it imports: each module becomes a function scope that hands its exports to the ones
 * after it, so that the page holds one inline script and fetches nothing (the offline report stays
 * one file). The modules are the package's own, compiled with it: named imports and exports only.
 */
export function clientBundle(entry: string): string {
  let bundle = bundles.get(entry);
  if (bundle === undefined) {
    bundle = bundleOf(entry);
    bundles.set(entry, bundle);
  }
  return bundle;
}

function bundleOf(entry: string): string {
  const order: string[] = [];
  const sources = new Map<string, string>();
  const visit = (path: string, trail: readonly string[]) => {
    if (sources.has(path)) return;
    if (trail.includes(path))
      throw new Error(`browser modules import each other in a loop: ${[...trail, path].join(" → ")}`);
    const source = readFileSync(join(DIST, path), "utf8");
    for (const match of source.matchAll(IMPORT)) visit(resolved(path, match[2] ?? ""), [...trail, path]);
    sources.set(path, source);
    order.push(path);
  };
  visit(entry, []);
  const names = new Map(order.map((path, index) => [path, `__module${index}`]));
  const modules = order.map((path) => {
    const source = sources.get(path) ?? "";
    const exported = [...source.matchAll(EXPORTED)].map((match) => match[1] ?? "");
    const code = source
      .replace(IMPORT, (_, specifiers: string, from: string) => {
        const list = specifiers
          .split(",")
          .map((part) => part.trim())
          .filter(Boolean)
          .map((part) => part.replace(/\s+as\s+/, ": "));
        return `const { ${list.join(", ")} } = ${names.get(resolved(path, from))};`;
      })
      .replace(/^export\s+\{\s*\};?\s*$/gm, "")
      .replace(/^export\s+/gm, "")
      .replace(/^\/\/# sourceMappingURL=.*$/gm, "");
    if (BARE_IMPORT.test(code) || /^export\b/m.test(code))
      throw new Error(`${path}: only named imports and exports are bundled`);
    return `const ${names.get(path)} = (() => {\n${code}\nreturn { ${exported.join(", ")} };\n})();`;
  });
  // Inside a <script> element nothing may read as its end.
  return `(() => {\n"use strict";\n${modules.join("\n")}\n})();`.replace(/<\/(script)/gi, "<\\/$1");
}

function resolved(from: string, specifier: string): string {
  return relative(DIST, join(DIST, dirname(from), specifier));
}

/** Where a page finds a bundle the studio serves: its path, with a hash of its content so that a browser's copy is never stale. */
export function bundleAddress(path: string, entry: string): string {
  const hash = createHash("sha256").update(clientBundle(entry)).digest("hex").slice(0, 16);
  return `${path}?v=${hash}`;
}
