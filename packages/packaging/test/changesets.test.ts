import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "./npm-project.js";

// `changeset version` reads each changeset's front matter: `---`, one `"package": bump` line per
// package, `---`. A formatter that takes the lines for a heading (`## "pkg": minor`) or a blank line
// after the first `---` makes the file one `changeset` refuses to parse.
const FRONT_MATTER = /^---\n(?:"@agentloop\/[a-z0-9-]+": (?:patch|minor|major)\n)+---\n\n\S/;

const changesets = readdirSync(join(ROOT, ".changeset")).filter((file) => file.endsWith(".md") && file !== "README.md");

describe("changesets", () => {
  it("each starts with the front matter changeset parses, naming only packages of this repository", () => {
    const packages = new Set(
      readdirSync(join(ROOT, "packages")).flatMap((dir) => {
        try {
          return [
            (JSON.parse(readFileSync(join(ROOT, "packages", dir, "package.json"), "utf8")) as { name: string }).name,
          ];
        } catch {
          return [];
        }
      }),
    );
    const wrong = changesets.filter((file) => {
      const text = readFileSync(join(ROOT, ".changeset", file), "utf8");
      const named = [...text.matchAll(/^"(@agentloop\/[a-z0-9-]+)": /gm)].map((match) => match[1] ?? "");
      return !FRONT_MATTER.test(text) || named.some((name) => !packages.has(name));
    });
    expect(wrong).toEqual([]);
  });

  it("tells a file in the form a formatter leaves it from one changeset can read", () => {
    expect(FRONT_MATTER.test('---\n"@agentloop/core": minor\n---\n\nText.')).toBe(true);
    expect(FRONT_MATTER.test('---\n\n## "@agentloop/core": minor\n\nText.')).toBe(false);
    expect(FRONT_MATTER.test('---\n\n"@agentloop/core": minor\n---\n\nText.')).toBe(false);
  });
});
