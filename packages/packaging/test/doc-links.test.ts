import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, sep } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "./npm-project.js";

// Every relative link in the README, docs/ and the packages' READMEs lands on a file of the
// repository, and every `#anchor` (in the same file or another) on a heading of that file, as
// GitHub makes a heading's anchor. Docs that move (the guide is a chapter per file) keep their links.

/** The Markdown files a reader follows links between, as paths under the root with `/` separators. */
function documents(): string[] {
  const docs = readdirSync(join(ROOT, "docs"), { recursive: true, encoding: "utf8" })
    .filter((file) => file.endsWith(".md"))
    .map((file) => `docs/${file.split(sep).join("/")}`);
  const packages = readdirSync(join(ROOT, "packages"))
    .map((name) => `packages/${name}/README.md`)
    .filter((file) => existsSync(join(ROOT, file)));
  return ["README.md", ...docs, ...packages].sort();
}

/** GitHub's anchor of a heading's text: lower case, punctuation dropped, spaces to `-`. */
export function anchorOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .replace(/\s/g, "-");
}

/** The anchors of a Markdown text's headings (outside code blocks), a repeated one numbered as GitHub does. */
export function anchorsOf(text: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  let fenced = false;
  for (const line of text.split("\n")) {
    if (line.startsWith("```")) fenced = !fenced;
    const heading = fenced ? null : /^#{1,6} (.*)$/.exec(line);
    if (!heading) continue;
    const anchor = anchorOf(heading[1] ?? "");
    const count = seen.get(anchor) ?? 0;
    seen.set(anchor, count + 1);
    anchors.add(count === 0 ? anchor : `${anchor}-${count}`);
  }
  return anchors;
}

/** The links of a Markdown text that point into the repository: `[text](target)` outside code blocks. */
export function linksOf(text: string): string[] {
  const prose = text.replace(/^```[\s\S]*?^```/gm, "").replace(/`[^`\n]*`/g, "");
  return [...prose.matchAll(/\]\(([^)\s]+)\)/g)]
    .map((match) => match[1] ?? "")
    .filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target));
}

/** What is wrong with each link of `file` that lands nowhere, as `file: target (why)`. */
function broken(file: string): string[] {
  const text = readFileSync(join(ROOT, file), "utf8");
  return linksOf(text).flatMap((target) => {
    const [path = "", anchor] = target.split("#");
    const landing = path === "" ? join(ROOT, file) : join(ROOT, dirname(file), decodeURI(path));
    if (
      !relative(ROOT, landing)
        .split(sep)
        .every((part) => part !== "..")
    )
      return [`${file}: ${target} (outside the repository)`];
    if (!existsSync(landing)) return [`${file}: ${target} (no such file)`];
    if (anchor === undefined || statSync(landing).isDirectory() || !landing.endsWith(".md")) return [];
    return anchorsOf(readFileSync(landing, "utf8")).has(anchor) ? [] : [`${file}: ${target} (no such heading)`];
  });
}

describe("links in the docs", () => {
  it("every relative link lands on a file, and every anchor on a heading of it", () => {
    const files = documents();
    expect(files).toEqual(expect.arrayContaining(["README.md", "docs/guide/README.md", "docs/guide/serving.md"]));
    expect(files.flatMap(broken)).toEqual([]);
  });

  it("makes anchors as GitHub does, and sees a link that lands nowhere", () => {
    expect(anchorOf("A scripted run that is resumed: `scriptedModel` or `stepScriptedModel`")).toBe(
      "a-scripted-run-that-is-resumed-scriptedmodel-or-stepscriptedmodel",
    );
    expect(anchorOf("Images, files and cost")).toBe("images-files-and-cost");
    expect([...anchorsOf("# Options\n## Options\n```\n# not a heading\n```\n")]).toEqual(["options", "options-1"]);
    expect(linksOf("[a](b.md#c) `[x](y.md)` [web](https://example.com)\n```\n[z](z.md)\n```\n")).toEqual(["b.md#c"]);
  });
});
