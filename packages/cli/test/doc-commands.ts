import { readdirSync, readFileSync } from "node:fs";
import { join, sep } from "node:path";
import { fileURLToPath } from "node:url";

/** The repository's root. */
export const ROOT = fileURLToPath(new URL("../../../", import.meta.url));

/** One command of a shell block in the docs, as written (continued lines joined, the comment cut). */
export interface DocCommand {
  /** `README.md`, `packages/cli/README.md`, `docs/guide/tools.md`, ... */
  readonly file: string;
  readonly command: string;
}

/** The Markdown files whose shell blocks are commands a reader runs: the READMEs and `docs/`. */
export function docFiles(): string[] {
  const packages = readdirSync(join(ROOT, "packages"))
    .map((name) => `packages/${name}/README.md`)
    .filter((file) => readdirSync(join(ROOT, file, "..")).includes("README.md"));
  const docs = readdirSync(join(ROOT, "docs"), { recursive: true, encoding: "utf8" })
    .filter((name) => name.endsWith(".md"))
    .map((name) => `docs/${name.split(sep).join("/")}`)
    .sort();
  return ["README.md", ...packages, ...docs];
}

/** Every command of every `sh`, `bash` or `shell` block in `docFiles()`, in reading order. */
export function docCommands(): DocCommand[] {
  return docFiles().flatMap((file) => {
    const text = readFileSync(join(ROOT, file), "utf8");
    return [...text.matchAll(/^```(?:sh|bash|shell)\n([\s\S]*?)^```/gm)].flatMap((block) =>
      commandsOf(block[1] ?? "").map((command) => ({ file, command })),
    );
  });
}

/** The commands of one block: lines ending in `\` continue, a `#` after a space starts a comment. */
export function commandsOf(block: string): string[] {
  return block
    .replace(/\\\n\s*/g, "")
    .split("\n")
    .map((line) => withoutComment(line).trim())
    .filter((line) => line !== "");
}

function withoutComment(line: string): string {
  let quote: string | null = null;
  for (let at = 0; at < line.length; at++) {
    const char = line[at];
    if (quote !== null) {
      if (char === quote) quote = null;
    } else if (char === "'" || char === '"') quote = char;
    else if (char === "#" && (at === 0 || /\s/.test(line[at - 1] ?? ""))) return line.slice(0, at);
  }
  return line;
}
